package plegvet

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/internal/inputfile"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/internal/tree"
)

// readLifecycle reads the tree's own feature-list tool and the version it
// calls current (featurelist.GeneratorFile, BinaryVersionFile): nil and
// no problem when the tree has no such tool (before v1.33, or a fork that
// dropped it); a tool or version file that cannot be read is a problem.
func readLifecycle(t *tree.Tree) (*featurelist.Generator, string) {
	name := filepath.Join(t.Dir, filepath.FromSlash(featurelist.GeneratorFile))
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	data, err := inputfile.Read(name)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v (the feature list's rules not read)", featurelist.GeneratorFile, err)
	}
	g, err := featurelist.ReadGenerator(featurelist.GeneratorFile, data)
	if err != nil {
		return nil, err.Error() + " (the feature list's rules not read)"
	}
	const module = "k8s.io/component-base"
	const unread = " (the version the feature list's rules call current not read)"
	rel := featurelist.BinaryVersionFile
	dir := t.ModuleDir(module)
	if dir == "" {
		return nil, rel + ": not in the tree" + unread
	}
	data, err = inputfile.Read(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(rel, "staging/src/"+module+"/"))))
	if err != nil {
		return nil, fmt.Sprintf("%s: %v%s", rel, err, unread)
	}
	if g.Current, err = featurelist.ReadBinaryVersion(rel, data); err != nil {
		return nil, err.Error() + unread // featurelist's errors name the file
	}
	return &g, ""
}

// readMarkdownList reads the tree's Markdown feature-list generator
// (v1.36 on) and the maps its imports register: nil and no problem when
// the tree has none; a generator, script or package that cannot be read
// is a problem.
func readMarkdownList(t *tree.Tree) (*featurelist.MarkdownGenerator, string) {
	name := filepath.Join(t.Dir, filepath.FromSlash(featurelist.MarkdownGeneratorFile))
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	const unread = " (feature_list.md not read)"
	src, err := inputfile.Read(name)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v%s", featurelist.MarkdownGeneratorFile, err, unread)
	}
	script, err := inputfile.Read(filepath.Join(t.Dir, filepath.FromSlash(featurelist.UpdateScript)))
	if err != nil {
		return nil, fmt.Sprintf("%s: %v%s", featurelist.UpdateScript, err, unread)
	}
	g, err := featurelist.ReadMarkdownGenerator(featurelist.MarkdownGeneratorFile, src, featurelist.UpdateScript, script)
	if err != nil {
		return nil, err.Error() + unread
	}
	g.Maps, err = featurelist.RegisteredMaps(g.Imports, func(importPath string) ([]*ast.File, error) {
		return parsePackage(t, importPath)
	})
	if err != nil {
		return nil, err.Error() + unread
	}
	return &g, ""
}

// parsePackage parses the non-test Go files of a package of the tree;
// none for a package the tree does not hold (klog, say), whose maps, if
// any, no feature list of the tree reads.
func parsePackage(t *tree.Tree, importPath string) ([]*ast.File, error) {
	dir := t.PackageDir(importPath)
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", importPath, err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := inputfile.Read(filepath.Join(dir, n))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Rel(filepath.Join(dir, n)), err)
		}
		f, err := parser.ParseFile(fset, n, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Rel(filepath.Join(dir, n)), err)
		}
		files = append(files, f)
	}
	return files, nil
}

// CheckMarkdownList compares a committed feature_list.md with the one
// the tree's generator writes, as hack/verify-featuregates.sh does (its
// diff -q), and says where: a row that differs or that the file lacks is
// a stale-markdown diagnostic at the gate's entry in the code, a row the
// code has no gate for or any other line at the file's line. rewrite,
// when set, ends each message.
func CheckMarkdownList(r *GatesReport, file string, data []byte, rewrite string) ([]Diagnostic, error) {
	var want strings.Builder
	if err := r.WriteMarkdownList(&want); err != nil {
		return nil, err
	}
	if want.String() == string(data) {
		return nil, nil
	}
	diag := staleDiag(suite.StaleMarkdown, rewrite)
	have, wantRows := markdownRows(string(data)), markdownRows(want.String())
	var out []Diagnostic
	for _, row := range wantRows.rows {
		got, ok := have.byName[row.name]
		g := r.Gate(row.name)
		at := Pos{File: file, Line: 1, Column: 1}
		if g != nil {
			at = g.Entry
		}
		switch {
		case !ok:
			out = append(out, diag(at, "%s lacks the row of gate %s", file, row.name))
		case got.text != row.text:
			out = append(out, diag(at, "%s:%d: the row of %s is %q; the generator writes %q", file, got.line, row.name, got.text, row.text))
		}
	}
	for _, row := range have.rows {
		if _, ok := wantRows.byName[row.name]; !ok {
			out = append(out, diag(Pos{File: file, Line: row.line, Column: 1}, "%s has a row for %s, which no map the generator lists declares", file, row.name))
		}
	}
	if len(out) == 0 {
		// The rows agree: the header, the legend or the order differs.
		line := 1
		for i := 0; i < len(data) && i < want.Len() && data[i] == want.String()[i]; i++ {
			if data[i] == '\n' {
				line++
			}
		}
		out = append(out, diag(Pos{File: file, Line: line, Column: 1}, "%s:%d differs from what the generator writes (outside the rows: header, legend or order)", file, line))
	}
	return out, nil
}

// mdRow is a row of a Markdown list: its gate, its text and its line.
type mdRow struct {
	name, text string
	line       int
}

type mdRows struct {
	rows   []mdRow
	byName map[string]mdRow
}

// markdownRows reads the rows of a feature list's table (lines "| Name |
// ..." after the header's rule).
func markdownRows(s string) mdRows {
	out := mdRows{byName: map[string]mdRow{}}
	inTable := false
	for i, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "|---------|"):
			inTable = true
		case inTable && strings.HasPrefix(l, "| "):
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "| "), " |")
			row := mdRow{name, l, i + 1}
			out.rows = append(out.rows, row)
			out.byName[name] = row
		default:
			inTable = false
		}
	}
	return out
}
