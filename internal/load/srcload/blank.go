package srcload

import (
	"bytes"
	"go/scanner"
	"go/token"
)

// A declarations-only import's function bodies are never type-checked,
// yet they were most of what parsing it built: the CRI API's api.pb.go
// is method bodies for the most part, and their syntax trees a tenth of
// report's heap, each page of it a page fault. blankBodies blanks them
// before the parser sees them, finding them with go/scanner (comments,
// literals and the semicolons Go inserts are its business).

// blankBodies returns src with the body of each top-level function
// declaration, init's aside (its statements may register gates), replaced
// by spaces between its braces; src itself when mayWrite (the caller's
// own copy), else a copy. Newlines stay, and so does every byte's offset,
// so positions and lines are those of src. src that does not scan (a
// literal or comment left open) or whose braces do not match is returned
// as it is: the parser then names what is wrong with it. A syntax error
// inside a body blanked is not read, and not reported: only what the
// importers read is.
func blankBodies(src []byte, mayWrite bool) []byte {
	var bodies [][2]int // each body's braces, as offsets
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, src, func(token.Position, string) { bad = true }, 0)
	depth := 0              // parentheses, brackets and braces open outside the declarations read
	prev := token.SEMICOLON // the token before, for a declaration's start
	for !bad {
		_, tok, _ := s.Scan()
		switch {
		case tok == token.EOF:
			if depth != 0 {
				return src
			}
			return blank(src, bodies, mayWrite)
		case tok == token.FUNC && depth == 0 && prev == token.SEMICOLON:
			open, end, ok := funcBody(&s, file)
			if !ok {
				return src
			}
			if open >= 0 {
				bodies = append(bodies, [2]int{open, end})
			}
			tok = token.SEMICOLON // the declaration ended
		case tok == token.LPAREN || tok == token.LBRACK || tok == token.LBRACE:
			depth++
		case tok == token.RPAREN || tok == token.RBRACK || tok == token.RBRACE:
			depth--
		}
		prev = tok
	}
	return src
}

// funcBody reads a function declaration from just past its func keyword
// to its end, and returns the offsets of its body's braces; open is -1
// for a declaration without a body, and for init's. ok is false when the
// source ends first.
func funcBody(s *scanner.Scanner, file *token.File) (open, end int, ok bool) {
	nested := 0 // parentheses and brackets open in the signature
	prev := token.FUNC
	method, name := false, ""
	for {
		pos, tok, lit := s.Scan()
		switch {
		case tok == token.EOF:
			return 0, 0, false
		case tok == token.LPAREN && prev == token.FUNC:
			method = true // a receiver
			nested++
		case tok == token.IDENT && name == "" && nested == 0:
			name = lit
		case tok == token.LPAREN || tok == token.LBRACK:
			nested++
		case tok == token.RPAREN || tok == token.RBRACK:
			nested--
		case tok == token.SEMICOLON && nested == 0:
			return -1, 0, true // no body
		case tok == token.LBRACE && (prev == token.STRUCT || prev == token.INTERFACE):
			// A struct or interface type in the signature: its braces.
			if _, ok := closingBrace(s, file); !ok {
				return 0, 0, false
			}
			tok = token.RBRACE
		case tok == token.LBRACE && nested == 0:
			end, ok := closingBrace(s, file)
			if !ok {
				return 0, 0, false
			}
			if name == "init" && !method {
				return -1, 0, true
			}
			return file.Offset(pos), end, true
		}
		prev = tok
	}
}

// closingBrace reads past the brace that closes the one just read, and
// returns its offset; false when the source ends first.
func closingBrace(s *scanner.Scanner, file *token.File) (int, bool) {
	for open := 1; ; {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return 0, false
		case token.LBRACE:
			open++
		case token.RBRACE:
			if open--; open == 0 {
				return file.Offset(pos), true
			}
		}
	}
}

// blank writes spaces over the bodies, newlines aside.
func blank(src []byte, bodies [][2]int, mayWrite bool) []byte {
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
