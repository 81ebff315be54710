// Package srcpos is the position every extracted fact carries: resolved
// to a file, line and column when it is read, so that it keeps its
// meaning in another analysis unit, in an answer and in its JSON, where
// a token.Pos means nothing without the file set that made it.
package srcpos

import (
	"fmt"
	"go/token"
	"strings"
)

// Pos is a position in a file: File as the file set names it (plegvet's
// loader names a tree's files relative to the checkout root, and an
// answer keeps that name in every form). URL and Path say where else the
// file can be opened; an answer sets them for its reader (FileVisitor),
// the extractors never do.
type Pos struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// URL is the web address of the file at the line, where one is known
	// (a release's file at its tag): "https://...#L215".
	URL string `json:"url,omitempty"`
	// Path is the file on disk, when asked for (-positions=module).
	Path string `json:"path,omitempty"`
}

// Of resolves p; the zero Pos when p is not valid.
func Of(fset *token.FileSet, p token.Pos) Pos {
	if !p.IsValid() {
		return Pos{}
	}
	tp := fset.Position(p)
	return Pos{File: tp.Filename, Line: tp.Line, Column: tp.Column}
}

// At resolves p for a position that may be absent: nil when p is not
// valid.
func At(fset *token.FileSet, p token.Pos) *Pos {
	if !p.IsValid() {
		return nil
	}
	pos := Of(fset, p)
	return &pos
}

// String is "FILE:LINE:COLUMN", as token.Position prints; for a file
// named by its web address, "URL#LLINE", which a browser opens at the line.
func (p Pos) String() string {
	if u, ok := p.url(); ok {
		return u
	}
	return token.Position{Filename: p.File, Line: p.Line, Column: p.Column}.String()
}

// url is "URL#LLINE" for a file named by its web address.
func (p Pos) url() (string, bool) {
	if !strings.HasPrefix(p.File, "https://") && !strings.HasPrefix(p.File, "http://") {
		return "", false
	}
	if p.Line <= 0 {
		return p.File, true
	}
	return fmt.Sprintf("%s#L%d", p.File, p.Line), true
}

// IsValid reports whether p names a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Before orders positions by file, line and column.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Column < q.Column
}

// Line is "FILE:LINE", the short form answers cite ("URL#LLINE" for a
// file named by its web address); "-" for nil.
func Line(p *Pos) string {
	if p == nil {
		return "-"
	}
	if u, ok := p.url(); ok {
		return u
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// FileVisitor is called with each file name an answer's JSON holds: name
// is the "file" key, and at the position that holds it, or nil for a
// "file" key that names a whole file (a feature map's). Relocating an
// answer sets at's URL and Path; printing it may rewrite name for the
// printed form and give it back.
type FileVisitor func(name *string, at *Pos)

// Files calls visit with each position given, nil ones skipped: what an
// answer's Files method does with its positions.
func Files(visit FileVisitor, ps ...*Pos) {
	for _, p := range ps {
		if p != nil {
			visit(&p.File, p)
		}
	}
}
