package criproto

import "fmt"

// checkBalance finds an unclosed or stray bracket before the parser sees
// the file: github.com/emicklei/proto v1.14.3 loops forever on a file
// that ends inside an rpc's braces (a truncated api.proto, say), so this
// check stands in front of it. Strings and comments are skipped.
func checkBalance(name string, src []byte) error {
	type open struct {
		ch        byte
		line, col int
	}
	var stack []open
	line, col := 1, 0
	closer := map[byte]byte{'}': '{', ')': '(', ']': '[', '>': '<'}
	for i := 0; i < len(src); i++ {
		c := src[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
			continue
		}
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				if src[i] == '\n' {
					line, col = line+1, 0
				}
				i++
			}
			i++
		case c == '"' || c == '\'':
			for i+1 < len(src) && src[i+1] != c && src[i+1] != '\n' {
				if src[i+1] == '\\' {
					i++
				}
				i++
				col++
			}
			i++
		case c == '{' || c == '(' || c == '[':
			stack = append(stack, open{c, line, col})
		case c == '}' || c == ')' || c == ']':
			if len(stack) == 0 || stack[len(stack)-1].ch != closer[c] {
				return fmt.Errorf("%s:%d:%d: unexpected %q; brackets do not match", name, line, col, c)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		o := stack[len(stack)-1]
		return fmt.Errorf("%s:%d:%d: %q is never closed (is the file truncated?)", name, o.line, o.col, o.ch)
	}
	return nil
}
