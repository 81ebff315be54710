//go:build !unix

package main

import "os"

// terminalWidth is 0: the terminal's width is read on unix only.
func terminalWidth(*os.File) int { return 0 }
