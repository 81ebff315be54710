package criproto

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// checkText refuses what the scanner would report without a position, or
// with the position of the token before: invalid UTF-8 and NUL bytes. The
// error names the first bad byte's line and column.
func checkText(name string, src []byte) error {
	for i := 0; i < len(src); {
		r, w := utf8.DecodeRune(src[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			line, col := lineCol(src, i)
			return fmt.Errorf("%s:%d:%d: invalid UTF-8 (byte %#02x); want a .proto file in UTF-8", name, line, col, src[i])
		case r == 0:
			line, col := lineCol(src, i)
			return fmt.Errorf("%s:%d:%d: invalid character NUL; want a text .proto file", name, line, col)
		}
		i += w
	}
	return nil
}

// lineCol is the 1-based line and column of src[off]; the column counts
// characters, as the parser's positions do.
func lineCol(src []byte, off int) (line, col int) {
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return bytes.Count(src[:start], []byte{'\n'}) + 1, utf8.RuneCount(src[start:off]) + 1
}

// checkBalance finds an unclosed or stray bracket before the parser sees
// the file: github.com/emicklei/proto v1.14.3 loops forever on a file
// that ends inside an rpc's braces (a truncated api.proto, say), so this
// check stands in front of it. Strings and comments are skipped.
func checkBalance(name string, src []byte) error {
	type open struct {
		ch  byte
		off int
	}
	var stack []open
	closer := map[byte]byte{'}': '{', ')': '(', ']': '['}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i++
		case c == '"' || c == '\'':
			for i+1 < len(src) && src[i+1] != c && src[i+1] != '\n' {
				if src[i+1] == '\\' {
					i++
				}
				i++
			}
			i++
		case c == '{' || c == '(' || c == '[':
			stack = append(stack, open{c, i})
		case c == '}' || c == ')' || c == ']':
			if len(stack) == 0 || stack[len(stack)-1].ch != closer[c] {
				line, col := lineCol(src, i)
				return fmt.Errorf("%s:%d:%d: unexpected %q; brackets do not match", name, line, col, c)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		o := stack[len(stack)-1]
		line, col := lineCol(src, o.off)
		return fmt.Errorf("%s:%d:%d: %q is never closed (is the file truncated?)", name, line, col, o.ch)
	}
	return nil
}
