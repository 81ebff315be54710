//go:build unix

package inputfile

import "syscall"

const openNonBlock = syscall.O_NONBLOCK
