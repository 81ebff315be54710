package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Text output carries strings from the inputs (a kubelet's git_version, a
// runtime's name, file names, gate names from source). A terminal obeys
// the control sequences such strings may hold, so everything plegvet
// prints passes through escapes: control characters are written as Go
// escapes (\x1b), and an error line never breaks over lines nor runs on
// for a megabyte.

// maxLine is the longest error line plegvet prints; longer ones are cut,
// saying how much was cut.
const maxLine = 1000

// escapeControls writes s with every control character but newline and
// tab (and, with keepNewlines false, those too) as a Go escape.
func escapeControls(s string, keepNewlines bool) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return isControl(r, keepNewlines) }) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case isControl(r, keepNewlines):
			q := fmt.Sprintf("%+q", string(r))
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func isControl(r rune, keepNewlines bool) bool {
	if keepNewlines && (r == '\n' || r == '\t') {
		return false
	}
	return r < 0x20 || (r >= 0x7f && r < 0xa0)
}

// errorLine makes an error message one line of bounded length.
func errorLine(s string) string {
	s = escapeControls(strings.TrimSpace(s), false)
	if len(s) > maxLine {
		cut := maxLine
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = fmt.Sprintf("%s... (%d more bytes cut)", s[:cut], len(s)-cut)
	}
	return s
}

// escapingWriter escapes control characters in text written to a
// terminal or a file; newlines and tabs pass. Spaces that end a line (a
// table's empty last cell) are dropped.
type escapingWriter struct {
	w       io.Writer
	pending []byte // an incomplete UTF-8 sequence from the last Write
	spaces  int    // spaces not yet written: they may end a line
}

func (e *escapingWriter) Write(p []byte) (int, error) {
	buf := append(e.pending, p...)
	// Keep a trailing incomplete rune for the next Write.
	end := len(buf)
	for k := 1; k < utf8.UTFMax && k <= len(buf); k++ {
		if utf8.RuneStart(buf[len(buf)-k]) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				end = len(buf) - k
			}
			break
		}
	}
	e.pending = append([]byte(nil), buf[end:]...)
	if err := e.emit(buf[:end]); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (e *escapingWriter) emit(b []byte) error {
	_, err := io.WriteString(e.w, e.trim(escapeControls(string(b), true)))
	return err
}

// trim drops the spaces before each newline, carrying a trailing run of
// spaces over to the next write.
func (e *escapingWriter) trim(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			e.spaces++
		case '\n':
			e.spaces = 0
			b.WriteByte('\n')
		default:
			b.WriteString(strings.Repeat(" ", e.spaces))
			e.spaces = 0
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Flush writes what an incomplete rune left pending.
func (e *escapingWriter) Flush() error {
	p := e.pending
	e.pending = nil
	return e.emit(p)
}
