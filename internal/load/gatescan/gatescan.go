// Package gatescan finds, before anything is loaded, the packages of a
// tree that may declare feature maps: those of pkg/ and of each staging
// module with a Go file that imports the feature-gate API, as Kubernetes'
// own feature-list generator walks them.
package gatescan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/load/buildenv"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Packages finds the packages that may declare feature maps:
// those of pkg/ and of each staging module with a (non-test) Go file that
// builds on the platform buildenv.Context names and imports the
// feature-gate API; a file left out by its build constraints that
// declares a feature map is named in the problems. Directories the
// go command ignores (vendor, testdata, _x, .x) are skipped. Packages the
// loader models are left to their model. The import paths come sorted.
func Packages(ctx context.Context, t *tree.Tree, staging map[string]string) ([]string, []string, error) {
	type root struct{ dir, importPath string }
	roots := []root{{filepath.Join(t.Dir, "pkg"), t.Module + "/pkg"}}
	// In module order: the problems found on the way come out in it.
	for _, m := range slices.Sorted(maps.Keys(staging)) {
		roots = append(roots, root{staging[m], m})
	}
	found := map[string]bool{}
	var problems []string
	// The walk lists the files; reading them (tens of thousands in a
	// checkout) is most of the time, and runs in parallel after it.
	var files []goFile
	for _, r := range roots {
		err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == r.dir && errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				problems = append(problems, fmt.Sprintf("%s: %v", t.Rel(p), err))
				return nil
			}
			if d.IsDir() {
				n := d.Name()
				if p != r.dir && (n == "vendor" || n == "testdata" || strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".")) {
					return filepath.SkipDir
				}
				return ctx.Err()
			}
			name := d.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(r.dir, filepath.Dir(p))
			ip := r.importPath
			if rel != "." {
				ip += "/" + filepath.ToSlash(rel)
			}
			if ip == featuregates.ClientGoPath {
				found[ip] = true // the API's copy declares gates of its own
				return nil
			}
			files = append(files, goFile{path: p, importPath: ip})
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	var g errgroup.Group
	g.SetLimit(4 * runtime.GOMAXPROCS(0)) // reads wait on the disk more than on the CPU
	for i := range files {
		g.Go(func() error {
			files[i].read(t)
			return nil
		})
	}
	_ = g.Wait() // each file's outcome is in files[i]
	// Files whose imports could not be read, by package: named unless the
	// package is loaded anyway (the loader then names them).
	unread := map[string][]string{}
	for _, f := range files {
		switch {
		case f.problem != "":
			problems = append(problems, f.problem)
		case f.broken:
			// It may be the file that imports the API: its package is
			// loaded, and the loader names the syntax error, as report
			// does for pkg/features.
			found[f.importPath] = true
		case f.unread != "":
			unread[f.importPath] = append(unread[f.importPath], f.unread)
		case f.importsAPI:
			found[f.importPath] = true
		}
	}
	for _, p := range slices.Sorted(maps.Keys(unread)) {
		if !found[p] {
			problems = append(problems, unread[p]...)
		}
	}
	return slices.DeleteFunc(slices.Sorted(maps.Keys(found)), engine.Modelled), problems, nil
}

// goFile is a Go file of a package that may declare feature maps, and
// what reading it found.
type goFile struct {
	path, importPath string
	// importsAPI: it imports the feature-gate API on this platform.
	importsAPI bool
	// problem: it could not be read; unread: its build constraints or
	// imports could not be (named unless its package is loaded anyway).
	problem, unread string
	// broken: it names the API, its imports parse but the file does not
	// (a syntax error in a declaration before them hides them).
	broken bool
}

// read reads the file and says whether it imports the feature-gate API.
func (f *goFile) read(t *tree.Tree) {
	src, err := inputfile.Read(f.path)
	if err != nil {
		f.problem = fmt.Sprintf("%s: %v", t.Rel(f.path), err)
		return
	}
	if !bytes.Contains(src, []byte(featuregates.APIPath+`"`)) {
		return
	}
	ctxt := buildenv.Context(src)
	ok, err := ctxt.MatchFile(filepath.Dir(f.path), filepath.Base(f.path))
	if err != nil {
		// Its package may not be loaded (this file may be the one that
		// imports the API): it is named then.
		f.unread = fmt.Sprintf("%s: build constraints: %s", t.Rel(f.path), inputfile.OneLine(err.Error()))
		return
	}
	if !ok {
		// Not part of the package on this platform, as for go build; a
		// feature map in it is named (by the loader when its package is
		// loaded anyway).
		if buildenv.DeclaresFeatureMap(src) {
			f.unread = buildenv.LeftOut(t.Rel(f.path))
		}
		return
	}
	parsed, err := parser.ParseFile(token.NewFileSet(), f.path, src, parser.ImportsOnly)
	if err != nil {
		// Named as the loader names a syntax error: FILE:LINE:COL from
		// the tree's root.
		f.unread = fmt.Sprintf("%s: its imports do not parse: %s", t.Rel(f.path), inputfile.OneLine(err.Error()))
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			f.unread = fmt.Sprintf("%s:%d:%d: syntax error: %s", t.Rel(f.path), list[0].Pos.Line, list[0].Pos.Column, inputfile.OneLine(list[0].Msg))
		}
		return
	}
	for _, im := range parsed.Imports {
		if v, err := strconv.Unquote(im.Path.Value); err == nil && featuregates.IsAPIPath(v) {
			f.importsAPI = true
		}
	}
	if !f.importsAPI {
		// ImportsOnly stops, without an error, at the first declaration
		// that is not an import: a syntax error there hides the imports
		// after it. The file names the API, so it is parsed whole.
		if _, err := parser.ParseFile(token.NewFileSet(), f.path, src, parser.SkipObjectResolution); err != nil {
			f.broken = true
		}
	}
}
