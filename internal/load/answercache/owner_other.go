//go:build !unix

package answercache

import "io/fs"

const openNoFollow = 0

// ownedPrivately: without Unix owners and modes, the directory's access
// control (the user's cache directory) is what keeps others out.
func ownedPrivately(fs.FileInfo) bool { return true }

func makePrivate(string) error { return nil }
