package lsp

import (
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble/finding"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/internal/protocol/lspprotocol"
	"github.com/plegvet/plegvet/srcpos"
)

// analyser loads and checks the open files' packages, keeping between
// edits what it parsed and type-checked (one engine cache per module).
// Only the worker uses it.
type analyser struct {
	opts   Options
	caches map[string]*engine.Cache // by module root
}

// analyse loads and checks the packages of the open files (their text as
// open, not as saved). It returns the findings by file, the files'
// problems (syntax errors) as error findings too, and what to tell the
// user's log.
func (a *analyser) analyse(ctx context.Context, open map[string]string) (map[string][]shown, []string, error) {
	found := map[string][]shown{}
	var logs []string
	overlay := map[string][]byte{}
	byTree := map[string][]string{} // module root -> import paths of open packages
	trees := map[string]*tree.Tree{}
	lines := lineSource{open: open, read: map[string][]string{}}
	for path, text := range open {
		overlay[path] = []byte(text)
	}
	for _, path := range slices.Sorted(maps.Keys(open)) {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			continue
		}
		dir := filepath.Dir(path)
		t, err := moduleOf(dir)
		if err != nil {
			// Outside any module: the file alone, for its syntax.
			logs = append(logs, fmt.Sprintf("plegvet lsp: %v: only the syntax of %s is checked", err, path))
			if sh, ok := syntaxError(path, open[path], &lines); ok {
				found[path] = append(found[path], sh)
			}
			continue
		}
		imp, ok := t.ImportPath(dir)
		if !ok {
			continue
		}
		trees[t.Dir] = t
		if !slices.Contains(byTree[t.Dir], imp) {
			byTree[t.Dir] = append(byTree[t.Dir], imp)
		}
	}
	// No open file is left in these.
	maps.DeleteFunc(a.caches, func(dir string, _ *engine.Cache) bool { return trees[dir] == nil })
	for _, dir := range slices.Sorted(maps.Keys(trees)) {
		cache := a.caches[dir]
		if cache == nil {
			cache = engine.NewCache()
			a.caches[dir] = cache
		}
		t := trees[dir]
		res, err := engine.Load(ctx, engine.Request{Tree: t, Paths: byTree[dir], FromSource: a.opts.FromSource, Overlay: overlay, LeaveOut: true, Cache: cache})
		if err != nil {
			return nil, logs, fmt.Errorf("loading the open files' packages in %s: %w", t.Dir, err)
		}
		for _, e := range res.LeftOut {
			logs = append(logs, "plegvet lsp: "+e.Error())
		}
		for _, p := range res.Problems {
			file := p.Pos.Filename
			if !filepath.IsAbs(file) {
				file = filepath.Join(t.Dir, filepath.FromSlash(file))
			}
			found[file] = append(found[file], errorFinding(lines.position(file, p.Pos.Line, p.Pos.Column), p.Msg))
		}
		if len(res.Packages) == 0 {
			continue
		}
		graph, err := engine.Analyze(a.opts.Analyzers, res.Packages, nil)
		if err != nil {
			return nil, logs, err
		}
		for act := range graph.All() {
			if !act.IsRoot {
				continue
			}
			if act.Err != nil {
				logs = append(logs, fmt.Sprintf("plegvet lsp: %s on %s: %v", act.Analyzer.Name, act.Package.PkgPath, act.Err))
				continue
			}
			for _, d := range act.Diagnostics {
				if !d.Pos.IsValid() {
					continue
				}
				// In the order reported (finding.FromAnalysis would sort),
				// files named as the file set has them: absolute.
				f := finding.Of(res.Fset, nil, d)
				found[f.Pos.File] = append(found[f.Pos.File], diagnostic(f, act.Analyzer.Name, &lines, a.opts))
			}
		}
	}
	return found, logs, nil
}

// moduleOf is the module a directory's package belongs to: the nearest
// go.mod's, except that a staging package belongs to its checkout (the
// module whose staging/src holds it), whose other packages it imports.
func moduleOf(dir string) (*tree.Tree, error) {
	t, err := tree.OpenModule(dir)
	if err != nil {
		return nil, err
	}
	staging := string(filepath.Separator) + filepath.Join("staging", "src") + string(filepath.Separator)
	if i := strings.LastIndex(dir+string(filepath.Separator), staging); i > 0 {
		if outer, err := tree.OpenModule(dir[:i]); err == nil && outer.Dir == dir[:i] {
			return outer, nil
		}
	}
	return t, nil
}

// syntaxError is a file's first syntax error as an error finding.
func syntaxError(path, text string, lines *lineSource) (shown, bool) {
	_, err := parser.ParseFile(token.NewFileSet(), path, text, parser.SkipObjectResolution)
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return shown{}, false
	}
	return errorFinding(lines.position(path, list[0].Pos.Line, list[0].Pos.Column), "syntax error: "+list[0].Msg), true
}

// errorFinding is an error diagnostic at one position.
func errorFinding(pos lspprotocol.Position, msg string) shown {
	return shown{diag: lspprotocol.Diagnostic{
		Range: lspprotocol.Range{Start: pos, End: pos}, Severity: lspprotocol.SeverityError, Source: "plegvet", Message: msg,
	}}
}

// diagnostic shows a finding: its range in UTF-16 positions (of the
// text as the editor has it), its check as code with severity and link
// (the analyzer's name when it has no check), related ranges, and its
// fixes as quick-fix code actions.
func diagnostic(d answer.Diagnostic, analyzer string, lines *lineSource, opts Options) shown {
	diag := lspprotocol.Diagnostic{
		Range:    lines.span(d.Pos, d.End),
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
		diag.Code = analyzer
	}
	for _, r := range d.Related {
		diag.RelatedInformation = append(diag.RelatedInformation, lspprotocol.DiagnosticRelatedInformation{
			Location: lspprotocol.Location{URI: fileURI(r.Pos.File), Range: lines.span(r.Pos, r.End)},
			Message:  r.Message,
		})
	}
	sh := shown{diag: diag}
	for i, f := range d.Fixes {
		edit := &lspprotocol.WorkspaceEdit{Changes: map[string][]lspprotocol.TextEdit{}}
		for _, e := range f.Edits {
			uri := fileURI(e.Pos.File)
			edit.Changes[uri] = append(edit.Changes[uri], lspprotocol.TextEdit{Range: lines.span(e.Pos, &e.End), NewText: e.NewText})
		}
		sh.fixes = append(sh.fixes, lspprotocol.CodeAction{
			Title: f.Message, Kind: lspprotocol.CodeActionQuickFix, Diagnostics: []lspprotocol.Diagnostic{diag},
			IsPreferred: i == 0, Edit: edit,
		})
	}
	return sh
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
	for _, r := range text[:b] {
		p.Character += utf16.RuneLen(r)
	}
	return p
}

// span is the range from pos to end (to pos when end is nil or unknown).
func (l *lineSource) span(pos srcpos.Pos, end *srcpos.Pos) lspprotocol.Range {
	e := pos
	if end != nil && end.Line > 0 {
		e = *end
	}
	return lspprotocol.Range{Start: l.position(pos.File, pos.Line, pos.Column), End: l.position(e.File, e.Line, e.Column)}
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
