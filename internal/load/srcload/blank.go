package srcload

import "bytes"

// A declarations-only import's function bodies are never type-checked,
// yet parsing them was most of parsing it: the CRI API's api.pb.go is
// method bodies for the most part. blankBodies blanks them before the
// parser sees them, in one pass over the bytes that knows just enough of
// Go's lexical grammar (comments, string and rune literals) to match the
// braces.

// blankBodies returns src with the body of each top-level function
// declaration, init's aside (its statements may register gates), replaced
// by spaces between its braces; src itself when mayWrite (the caller's
// own copy), else a copy. Newlines stay, and so does every byte's offset,
// so positions and lines are those of src. A declaration it is not sure
// of is left as it is; src with a literal or comment left open, or braces
// that do not match, is returned as it is (the parser then names what is
// wrong with it). A syntax error inside a body blanked is not read, and
// not reported: only what the importers read is.
func blankBodies(src []byte, mayWrite bool) []byte {
	var bodies [][2]int // each body's braces
	lex := lexer{src: src, stmtStart: true}
	for {
		tok, ok := lex.next()
		if !ok {
			return src
		}
		if tok == tokEOF {
			break
		}
		if tok != tokFunc || !lex.declStart {
			continue
		}
		open, ok := lex.bodyStart()
		if !ok {
			return src
		}
		if open < 0 {
			continue // no body, or not sure which brace opens it
		}
		end, ok := lex.closeOf(open)
		if !ok {
			return src
		}
		bodies = append(bodies, [2]int{open, end})
	}
	if len(bodies) == 0 {
		return src
	}
	out := src
	if !mayWrite {
		out = bytes.Clone(src)
	}
	for _, b := range bodies {
		for i := b[0] + 1; i < b[1]; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	return out
}

type token_ int

const (
	tokEOF   token_ = iota
	tokFunc         // the keyword func
	tokIdent        // another identifier or keyword
	tokEnds         // a literal, ')', ']', '}', "++" or "--": a newline after it ends a statement
	tokOther        // any other operator or punctuation
	tokNewline
)

// lexer reads src's tokens as far as brace matching needs.
type lexer struct {
	src []byte
	pos int
	// declStart says whether the token just read may start a top-level
	// declaration: no brace, parenthesis or bracket is open, and the
	// token before it ended a statement (or there is none).
	declStart bool
	depth     int    // braces, parentheses and brackets open
	ended     bool   // the last token ends a statement if a newline follows it
	stmtStart bool   // a statement may start here: after a semicolon, inserted or not
	ident     []byte // the identifier just read
	tokStart  int
}

// next reads a token; false when a literal or comment is left open.
func (l *lexer) next() (token_, bool) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		l.tokStart = l.pos
		switch {
		case c == '\n':
			// A newline after a token that ends a statement ends it (a
			// semicolon is inserted).
			l.pos++
			l.stmtStart = l.stmtStart || l.ended
			return tokNewline, true
		case c == ' ' || c == '\t' || c == '\r':
			l.pos++
			continue
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '/':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
			continue
		case c == '/' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '*':
			end := indexFrom(l.src, l.pos+2, "*/")
			if end < 0 {
				return 0, false
			}
			l.pos = end + 2
			continue
		case c == '"' || c == '\'':
			if !l.skipQuoted(c) {
				return 0, false
			}
			l.declStart, l.ended, l.stmtStart = false, true, false
			return tokEnds, true
		case c == '`':
			end := indexFrom(l.src, l.pos+1, "`")
			if end < 0 {
				return 0, false
			}
			l.pos = end + 1
			l.declStart, l.ended, l.stmtStart = false, true, false
			return tokEnds, true
		case isLetter(c):
			start := l.pos
			for l.pos < len(l.src) && (isLetter(l.src[l.pos]) || isDigit(l.src[l.pos])) {
				l.pos++
			}
			l.ident = l.src[start:l.pos]
			l.declStart = l.depth == 0 && l.stmtStart
			l.ended, l.stmtStart = true, false
			if string(l.ident) == "func" {
				l.ended = false
				return tokFunc, true
			}
			return tokIdent, true
		case isDigit(c) || c == '.' && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
			// A number, as far as letters, digits, dots and exponent signs go.
			for l.pos < len(l.src) {
				d := l.src[l.pos]
				if isLetter(d) || isDigit(d) || d == '.' || (d == '+' || d == '-') && (l.src[l.pos-1]|0x20 == 'e' || l.src[l.pos-1]|0x20 == 'p') {
					l.pos++
					continue
				}
				break
			}
			l.declStart, l.ended, l.stmtStart = false, true, false
			return tokEnds, true
		}
		l.pos++
		l.declStart, l.ended, l.stmtStart = false, false, false
		switch c {
		case '{', '(', '[':
			l.depth++
		case '}', ')', ']':
			l.depth--
			l.ended = true
			return tokEnds, true
		case ';':
			l.stmtStart = true
		case '+', '-':
			if l.pos < len(l.src) && l.src[l.pos] == c {
				l.pos++
				l.ended = true
				return tokEnds, true
			}
		}
		return tokOther, true
	}
	return tokEOF, true
}

// bodyStart reads a function declaration's signature, after func, up to
// its body's opening brace and returns that brace's offset: -1 for init,
// a declaration without a body (its line ends first) or one whose
// signature holds a brace other than a struct's or an interface's.
func (l *lexer) bodyStart() (int, bool) {
	base := l.depth
	first := true
	typeBrace := false // the last token was struct or interface
	for {
		tok, ok := l.next()
		if !ok {
			return 0, false
		}
		switch {
		case tok == tokEOF:
			return -1, true
		case first && tok == tokIdent && string(l.ident) == "init":
			return -1, true
		case tok == tokNewline && l.depth == base:
			return -1, true
		case tok == tokOther && l.src[l.tokStart] == '{':
			if typeBrace {
				// A struct or interface type in the signature: read past it.
				if _, ok := l.closeOf(l.tokStart); !ok {
					return 0, false
				}
				l.declStart, l.ended, l.stmtStart = false, true, false
				typeBrace = false
				continue
			}
			if l.depth != base+1 {
				return -1, true // a brace inside parentheses: not sure what it is
			}
			return l.tokStart, true
		}
		first = false
		typeBrace = tok == tokIdent && (string(l.ident) == "struct" || string(l.ident) == "interface")
	}
}

// closeOf is the offset of the brace closing the one at open, where the
// lexer stands just past it; the lexer is left past the closing brace.
func (l *lexer) closeOf(open int) (int, bool) {
	depth := l.depth
	for {
		tok, ok := l.next()
		if !ok || tok == tokEOF {
			return 0, false
		}
		if tok == tokEnds && l.src[l.tokStart] == '}' && l.depth == depth-1 {
			return l.tokStart, true
		}
		if l.depth < depth-1 {
			return 0, false
		}
	}
}

// skipQuoted reads an interpreted string or a rune literal; false when
// its line ends first.
func (l *lexer) skipQuoted(q byte) bool {
	for i := l.pos + 1; i < len(l.src); i++ {
		switch l.src[i] {
		case '\\':
			i++
		case '\n':
			return false
		case q:
			l.pos = i + 1
			return true
		}
	}
	return false
}

func indexFrom(src []byte, from int, s string) int {
	if i := bytes.Index(src[from:], []byte(s)); i >= 0 {
		return from + i
	}
	return -1
}

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c >= 0x80
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
