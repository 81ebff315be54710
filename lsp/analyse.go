package lsp

import (
	"context"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/lspprotocol"
)

// analyse loads the packages of the open files (their text as open, not
// as saved) with everything they import, runs the analyzers, and returns
// the findings by file, and each package's load errors as findings too.
func analyse(ctx context.Context, root string, open map[string]string, opts Options) (map[string][]shown, error) {
	found := map[string][]shown{}
	if len(open) == 0 {
		return found, nil
	}
	overlay := map[string][]byte{}
	var patterns []string
	for path, text := range open {
		overlay[path] = []byte(text)
		if strings.HasSuffix(path, ".go") {
			patterns = append(patterns, "file="+path)
		}
	}
	if len(patterns) == 0 {
		return found, nil
	}
	cfg := &packages.Config{
		Mode:    packages.LoadAllSyntax | packages.NeedModule,
		Context: ctx,
		Dir:     root,
		Overlay: overlay,
	}
	initial, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading the open files' packages in %s: %w", root, err)
	}
	lines := lineSource{open: open, read: map[string][]string{}}
	for _, p := range initial {
		for _, e := range p.Errors {
			if path, sh, ok := loadError(e, &lines); ok {
				found[path] = append(found[path], sh)
			}
		}
	}
	graph, err := checker.Analyze(opts.Analyzers, initial, &checker.Options{})
	if err != nil {
		return nil, err
	}
	for act := range graph.All() {
		if !act.IsRoot || act.Err != nil {
			continue
		}
		fset := act.Package.Fset
		for _, d := range act.Diagnostics {
			path, sh, ok := finding(fset, act.Analyzer, d, &lines, opts)
			if ok {
				found[path] = append(found[path], sh)
			}
		}
	}
	return found, nil
}

// loadError is a package's error as a finding at its position, when it
// has one ("file:line:col: message", as go list and the type checker
// give it).
func loadError(e packages.Error, lines *lineSource) (string, shown, bool) {
	file, line, col, ok := splitPos(e.Pos)
	if !ok {
		return "", shown{}, false
	}
	pos := lines.position(file, line, col)
	return file, shown{diag: lspprotocol.Diagnostic{
		Range:    lspprotocol.Range{Start: pos, End: pos},
		Severity: lspprotocol.SeverityError,
		Source:   "plegvet",
		Message:  e.Msg,
	}}, true
}

// splitPos reads "file:line:col" or "file:line".
func splitPos(s string) (string, int, int, bool) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 {
		return "", 0, 0, false
	}
	n := len(parts)
	col := 1
	if c, err := strconv.Atoi(parts[n-1]); err == nil && n >= 3 {
		if l, err := strconv.Atoi(parts[n-2]); err == nil {
			return strings.Join(parts[:n-2], ":"), l, c, true
		}
	}
	l, err := strconv.Atoi(parts[n-1])
	if err != nil {
		return "", 0, 0, false
	}
	return strings.Join(parts[:n-1], ":"), l, col, true
}

// finding converts a diagnostic: its range in UTF-16 positions, its check
// as code with severity and link, related positions, and its fixes as
// quick-fix code actions.
func finding(fset *token.FileSet, a *analysis.Analyzer, d analysis.Diagnostic, lines *lineSource, opts Options) (string, shown, bool) {
	if !d.Pos.IsValid() {
		return "", shown{}, false
	}
	start := fset.Position(d.Pos)
	end := start
	if d.End.IsValid() {
		end = fset.Position(d.End)
	}
	diag := lspprotocol.Diagnostic{
		Range:    lspprotocol.Range{Start: lines.position(start.Filename, start.Line, start.Column), End: lines.position(end.Filename, end.Line, end.Column)},
		Severity: lspprotocol.SeverityWarning,
		Code:     d.Category,
		Source:   "plegvet",
		Message:  d.Message,
	}
	if opts.Rule != nil {
		if id, severity, href, ok := opts.Rule(d.Category); ok {
			diag.Code = id
			if severity == "note" {
				diag.Severity = lspprotocol.SeverityInformation
			}
			if href != "" {
				diag.CodeDescription = &lspprotocol.CodeDescription{Href: href}
			}
		}
	}
	if diag.Code == "" {
		diag.Code = a.Name
	}
	for _, r := range d.Related {
		p := fset.Position(r.Pos)
		e := p
		if r.End.IsValid() {
			e = fset.Position(r.End)
		}
		diag.RelatedInformation = append(diag.RelatedInformation, lspprotocol.DiagnosticRelatedInformation{
			Location: lspprotocol.Location{URI: fileURI(p.Filename), Range: lspprotocol.Range{Start: lines.position(p.Filename, p.Line, p.Column), End: lines.position(e.Filename, e.Line, e.Column)}},
			Message:  r.Message,
		})
	}
	sh := shown{diag: diag}
	for i, f := range d.SuggestedFixes {
		edit := &lspprotocol.WorkspaceEdit{Changes: map[string][]lspprotocol.TextEdit{}}
		for _, e := range f.TextEdits {
			p, q := fset.Position(e.Pos), fset.Position(e.End)
			if !e.End.IsValid() {
				q = p
			}
			uri := fileURI(p.Filename)
			edit.Changes[uri] = append(edit.Changes[uri], lspprotocol.TextEdit{
				Range:   lspprotocol.Range{Start: lines.position(p.Filename, p.Line, p.Column), End: lines.position(q.Filename, q.Line, q.Column)},
				NewText: string(e.NewText),
			})
		}
		sh.fixes = append(sh.fixes, lspprotocol.CodeAction{
			Title: f.Message, Kind: lspprotocol.CodeActionQuickFix, Diagnostics: []lspprotocol.Diagnostic{diag},
			IsPreferred: i == 0, Edit: edit,
		})
	}
	return start.Filename, sh, true
}

// lineSource gives a file's lines: an open document's as edited, another
// file's as on disk.
type lineSource struct {
	open map[string]string
	read map[string][]string
}

func (l *lineSource) lines(file string) []string {
	if ls, ok := l.read[file]; ok {
		return ls
	}
	text, ok := l.open[file]
	if !ok {
		data, err := os.ReadFile(filepath.Clean(file))
		if err == nil {
			text = string(data)
		}
	}
	ls := strings.Split(text, "\n")
	l.read[file] = ls
	return ls
}

// position converts a 1-based line and byte column to an LSP position,
// its character counted in UTF-16 code units.
func (l *lineSource) position(file string, line, col int) lspprotocol.Position {
	if line <= 0 {
		return lspprotocol.Position{}
	}
	ls := l.lines(file)
	p := lspprotocol.Position{Line: line - 1}
	if line-1 >= len(ls) {
		return p
	}
	text := ls[line-1]
	b := min(max(col-1, 0), len(text))
	p.Character = utf16Len(text[:b])
	return p
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// apply applies a change to a document's text: the whole text, or the
// range's, positions in UTF-16 code units.
func apply(text string, c lspprotocol.TextDocumentContentChangeEvent) string {
	if c.Range == nil {
		return c.Text
	}
	start, end := offset(text, c.Range.Start), offset(text, c.Range.End)
	if end < start {
		start, end = end, start
	}
	return text[:start] + c.Text + text[end:]
}

// offset is the byte offset of a position in text, clamped to it.
func offset(text string, p lspprotocol.Position) int {
	off := 0
	for line := 0; line < p.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	units := 0
	for off < len(text) && text[off] != '\n' && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[off:])
		units += utf16.RuneLen(r)
		off += size
	}
	return off
}
