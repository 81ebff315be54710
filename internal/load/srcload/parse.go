// Parsing a package's directory: the files that build on linux/amd64,
// what is wrong with the others, and the package name they agree on.

package srcload

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plegvet/plegvet/internal/load/buildenv"
	"github.com/plegvet/plegvet/internal/load/inputfile"
)

// parse reads the non-test Go files of dir that build on the platform
// buildenv.Context names (linux/amd64, where kubelets run, by default), in
// name order, and keeps those whose package clause names the package;
// every other file it was given is a problem. The load parses most
// packages ahead, all at once (prefetch); parse is one package alone.
func (l *loader) parse(ctx context.Context, importPath, dir string) (*parsedPkg, error) {
	rp, err := l.read(ctx, importPath, dir)
	if err != nil {
		return nil, err
	}
	return l.take(rp, l.parseAll(rp.sources)), nil
}

// readPkg is a package's directory read: the files to parse, made
// readable, and the problems of the others. Reading touches nothing of
// the loader's but the counters, so packages are read at once.
type readPkg struct {
	importPath string
	dir        string
	sources    []source
	problems   []Problem
}

// read reads a package's directory for parse: which files build, their
// content made readable (line directives dropped, a declarations-only
// import's function bodies blanked).
func (l *loader) read(ctx context.Context, importPath, dir string) (*readPkg, error) {
	rel := l.tree.Rel(dir)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: load stopped: %w", inputfile.QuoteName(rel), err)
	}
	entries, err := l.dirNames(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(rel), inputfile.Cause(err))
	}
	// The file is read once, by the OpenFile hook, when its name says it
	// may build; build constraints are then read from memory.
	var src []byte
	var readErr error
	ctxt := buildenv.Context(nil)
	ctxt.OpenFile = func(path string) (io.ReadCloser, error) {
		var ok bool
		if src, ok = l.Overlay[path]; !ok {
			src, readErr = inputfile.Read(path)
		}
		if readErr != nil {
			return nil, readErr
		}
		return io.NopCloser(bytes.NewReader(src)), nil
	}
	// A file left out by its name alone (x_windows.go) was not read by
	// MatchFile: it is read here, to name it if it declares a feature map.
	leftOutDeclares := func(filename string) bool {
		if src == nil {
			if _, err := ctxt.OpenFile(filename); err != nil {
				return false
			}
		}
		return buildenv.DeclaresFeatureMap(src)
	}
	// A declarations-only import's function bodies, which are not
	// type-checked, are blanked before parsing (blankBodies), and its
	// comments (the CRI API's generated field docs) parsed past: its
	// importers read its declarations only.
	declsOnly := !l.requested[importPath] && l.DeclarationsOnly != nil && l.DeclarationsOnly(importPath)
	mode := parser.ParseComments | parser.SkipObjectResolution
	if declsOnly {
		mode = parser.SkipObjectResolution
	}
	readable := func(filename, name string, src []byte) source {
		src = WithoutLineDirectives(src)
		s := source{filename: filename, name: name, src: src, mode: mode}
		if declsOnly {
			// Blanked as it is parsed (parses), not here: the CRI API's
			// 600 KB would keep prefetch from the imports it leads to.
			_, shared := l.Overlay[filename] // the caller's: written to a copy
			s.blank, s.blankInPlace = true, !shared && l.Cache == nil
		}
		return s
	}
	rp := &readPkg{importPath: importPath, dir: dir}
	for _, name := range entries {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: load stopped: %w", inputfile.QuoteName(rel), err)
		}
		filename := filepath.Join(dir, name)
		fileProblem := func(msg string) {
			rp.problems = append(rp.problems, Problem{Pos: token.Position{Filename: l.tree.Rel(filename)}, Msg: inputfile.OneLine(msg)})
		}
		src, readErr = nil, nil
		ok, err := ctxt.MatchFile(dir, name)
		nul := bytes.IndexByte(src, 0)
		switch {
		case readErr != nil:
			fileProblem(readErr.Error())
		case err != nil && nul < 0:
			fileProblem("build constraints: " + strings.TrimPrefix(strings.TrimPrefix(err.Error(), "read "+filename+": "), name+": "))
		case err == nil && !ok && leftOutDeclares(filename):
			// Not part of the package on this platform, as for go build,
			// but its gates would be: named, not dropped.
			rp.problems = append(rp.problems, Problem{Pos: token.Position{Filename: l.tree.Rel(filename)}, Msg: strings.TrimPrefix(buildenv.LeftOut(""), ": ")})
		case err == nil && !ok:
			// not part of the package on this platform, as for go build
		case nul >= 0:
			fileProblem(fmt.Sprintf("holds a NUL byte at offset %d; not Go source", nul))
		case l.TreeRelativeNames:
			rp.sources = append(rp.sources, readable(filename, l.tree.Rel(filename), src))
		default:
			rp.sources = append(rp.sources, readable(filename, filename, src))
		}
	}
	return rp, nil
}

// take makes a read package's parsed files a package: those whose
// package clause names the package the majority of them name; the others,
// and syntax errors, are its problems.
func (l *loader) take(rp *readPkg, parsed []parsed) *parsedPkg {
	pp := &parsedPkg{dir: rp.dir, problems: rp.problems}
	var files []*ast.File
	var names []string
	for i, r := range parsed {
		filename, f, err := rp.sources[i].filename, r.file, r.err
		if err != nil {
			pp.problems = append(pp.problems, l.syntaxProblem(filename, err))
		}
		if f == nil || f.Name == nil || f.Package == token.NoPos || f.Name.Name == "" {
			continue // the package clause did not parse: named by its syntax problem
		}
		if f.Name.Name == "_" {
			pp.problems = append(pp.problems, Problem{Pos: l.position(f.Name.Pos()), Msg: "package _ is not a valid package name"})
			continue
		}
		files = append(files, f)
		names = append(names, filename)
	}
	// Files that disagree on the name cannot be checked together (go build
	// refuses the directory): the majority's are kept, the others named.
	pp.name = majorityName(files, guessName(rp.importPath))
	for i, f := range files {
		if f.Name.Name != pp.name {
			pp.problems = append(pp.problems, Problem{Pos: l.position(f.Name.Pos()), Msg: fmt.Sprintf("package %s, want %s (the package's other files)", f.Name.Name, pp.name)})
			continue
		}
		pp.files = append(pp.files, f)
		pp.names = append(pp.names, names[i])
	}
	sort.SliceStable(pp.problems, func(i, j int) bool { return pp.problems[i].Pos.Filename < pp.problems[j].Pos.Filename })
	return pp
}

// usable says why a parsed package cannot be checked: it has no file.
func (l *loader) usable(pp *parsedPkg) error {
	if len(pp.files) > 0 {
		return nil
	}
	rel := inputfile.QuoteName(l.tree.Rel(pp.dir))
	switch len(pp.problems) {
	case 0:
		return fmt.Errorf("%s: no Go files for %s", rel, buildenv.Platform(buildenv.Context(nil)))
	case 1:
		return fmt.Errorf("%s: no Go file could be loaded: %s", rel, pp.problems[0].Error())
	}
	return fmt.Errorf("%s: none of its %d Go files could be loaded: %s (and %d more)", rel, len(pp.problems), pp.problems[0].Error(), len(pp.problems)-1)
}

func (l *loader) position(pos token.Pos) token.Position {
	p := l.fset.Position(pos)
	p.Filename = l.tree.Rel(p.Filename)
	return p
}

func (l *loader) syntaxProblem(filename string, err error) Problem {
	if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
		pos := list[0].Pos
		pos.Filename = l.tree.Rel(pos.Filename)
		msg := list[0].Msg
		if len(list) > 1 {
			msg += fmt.Sprintf(" (and %d more syntax errors)", len(list)-1)
		}
		return Problem{Pos: pos, Msg: inputfile.OneLine("syntax error: " + msg)}
	}
	return Problem{Pos: token.Position{Filename: l.tree.Rel(filename)}, Msg: inputfile.OneLine(err.Error())}
}

// majorityName is the package name most files declare; on a tie, the one
// the import path suggests, then the first in order.
func majorityName(files []*ast.File, guess string) string {
	count := map[string]int{}
	for _, f := range files {
		count[f.Name.Name]++
	}
	better := func(n, best string) bool {
		if count[n] != count[best] {
			return count[n] > count[best]
		}
		if (n == guess) != (best == guess) {
			return n == guess
		}
		return n < best
	}
	best := ""
	for n := range count {
		if best == "" || better(n, best) {
			best = n
		}
	}
	return best
}

// guessName is the package name an import path most likely declares.
func guessName(p string) string {
	elems := strings.Split(p, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
		name = elems[len(elems)-2]
	}
	name = strings.TrimPrefix(name, "go-")
	if i := strings.Index(name, ".v"); i > 0 {
		name = name[:i]
	}
	return strings.NewReplacer("-", "_", ".", "_").Replace(name)
}
