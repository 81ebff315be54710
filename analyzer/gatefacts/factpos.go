package gatefacts

import (
	"go/token"
	"sort"
)

// FactPos is a range of source recorded in a fact: a token.Pos means
// nothing outside the FileSet it came from, and under go vet each package
// is analysed with a FileSet of its own. Offsets are the file's; lines
// and columns are those the offsets have in it (not adjusted by //line
// directives).
type FactPos struct {
	File                          string // as the FileSet names it
	Offset, Line, Column          int
	EndOffset, EndLine, EndColumn int
}

// NewFactPos records the range pos..end of fset; the zero FactPos when
// pos is not valid or end is not in the same file after pos.
func NewFactPos(fset *token.FileSet, pos, end token.Pos) FactPos {
	f := fset.File(pos)
	if f == nil || !end.IsValid() || fset.File(end) != f || end < pos {
		return FactPos{}
	}
	p, e := f.PositionFor(pos, false), f.PositionFor(end, false)
	return FactPos{
		File: f.Name(), Offset: p.Offset, Line: p.Line, Column: p.Column,
		EndOffset: e.Offset, EndLine: e.Line, EndColumn: e.Column,
	}
}

// IsValid reports whether the FactPos records a range.
func (p FactPos) IsValid() bool { return p.File != "" && p.Line > 0 }

// In returns the range in fset, so that an importer can report there:
// in the recorded file when fset holds it (the drivers that load every
// package into one FileSet, and the library), else in a stand-in file of
// the same name added to fset, whose line table maps the recorded offsets
// to their lines and columns (go vet, where only the package's own files
// are in its FileSet). NoPos when the FactPos is not valid or its lines
// and offsets cannot belong to one file.
func (p FactPos) In(fset *token.FileSet) (pos, end token.Pos) {
	if !p.IsValid() {
		return token.NoPos, token.NoPos
	}
	var found *token.File
	fset.Iterate(func(f *token.File) bool {
		if f.Name() != p.File || p.EndOffset > f.Size() {
			return true
		}
		a, b := f.PositionFor(f.Pos(p.Offset), false), f.PositionFor(f.Pos(p.EndOffset), false)
		if a.Line == p.Line && a.Column == p.Column && b.Line == p.EndLine && b.Column == p.EndColumn {
			found = f
			return false
		}
		return true
	})
	if found == nil {
		found = p.standIn(fset)
		if found == nil {
			return token.NoPos, token.NoPos
		}
	}
	return found.Pos(p.Offset), found.Pos(p.EndOffset)
}

// standIn adds to fset a file named as the recorded one, of a size that
// holds the range, whose lines start where the recorded positions say
// theirs do (the lines between one byte long, just before the next):
// positions in the range then print as they would in the real file.
func (p FactPos) standIn(fset *token.FileSet) *token.File {
	type anchor struct{ line, start int }
	anchors := []anchor{{1, 0}, {p.Line, p.Offset - (p.Column - 1)}, {p.EndLine, p.EndOffset - (p.EndColumn - 1)}}
	sort.SliceStable(anchors, func(i, j int) bool { return anchors[i].line < anchors[j].line })
	lines := []int{0}
	for i := 1; i < len(anchors); i++ {
		a, b := anchors[i-1], anchors[i]
		if b.line == a.line {
			if b.start != a.start {
				return nil
			}
			continue
		}
		if b.start-a.start < b.line-a.line {
			return nil // more lines than bytes: not one file
		}
		// The lines between are packed against the next anchor: a
		// recorded position stays on its line, which the real file's
		// next line does not start before.
		for l := a.line + 1; l < b.line; l++ {
			lines = append(lines, b.start-(b.line-l))
		}
		lines = append(lines, b.start)
	}
	f := fset.AddFile(p.File, -1, p.EndOffset+1)
	if !f.SetLines(lines) {
		return nil
	}
	return f
}
