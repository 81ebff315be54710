//go:build !unix

package inputfile

const openNonBlock = 0
