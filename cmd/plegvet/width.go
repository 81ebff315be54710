package main

import (
	"io"
	"os"
	"strconv"
	"strings"
)

// defaultWidth is the width text is fitted to when COLUMNS does not say
// and stdout is not a terminal.
const defaultWidth = 80

// textWidth is the width text printed to w is fitted to: COLUMNS when it
// holds a positive number, else the terminal's width when w is one, else
// 80.
func textWidth(w io.Writer) int {
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if u, ok := w.(untilSignal); ok {
		w = u.w
	}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		if n := terminalWidth(f); n > 0 {
			return n
		}
	}
	return defaultWidth
}
