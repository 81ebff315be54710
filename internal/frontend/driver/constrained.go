package driver

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/buildenv"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// leftOutFeatureMaps names, one line each, the files the go command left
// out by their build constraints (on the platform GOOS, GOARCH,
// CGO_ENABLED and GOFLAGS' -tags choose) that declare a feature map, in
// the matched packages that are not loaded (the loader names those of the
// loaded ones): their gates would otherwise be dropped without a word. It
// says whether it named any.
func leftOutFeatureMaps(o *Options, meta []*packages.Package, res *engine.Loaded, stderr io.Writer) bool {
	loaded := map[string]bool{}
	for _, p := range res.Packages {
		loaded[p.PkgPath] = true
	}
	// Named as the loader names files: from the module's root.
	name := filepath.Clean
	if t, err := tree.OpenModule("."); err == nil {
		name = t.Rel
	}
	named := false
	for _, p := range meta {
		if loaded[p.PkgPath] {
			continue
		}
		for _, f := range p.IgnoredFiles {
			if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
				continue
			}
			if src, err := inputfile.Read(f); err == nil && buildenv.DeclaresFeatureMap(src) {
				o.fail(stderr, buildenv.LeftOut(name(f)))
				named = true
			}
		}
	}
	return named
}

// filesDisagree says why the loading read other files of a package than
// the go command builds, or "": a platform setting the loading could not
// know (the go command's cgo default without a C compiler) would make
// the two answers differ, and go/packages answers then.
func filesDisagree(meta []*packages.Package, res *engine.Loaded) string {
	byPath := map[string]*packages.Package{}
	packages.Visit(meta, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	// Files the loading named as problems were left out for that reason.
	problem := map[string]bool{}
	for _, p := range res.Problems {
		problem[filepath.Base(p.Pos.Filename)] = true
	}
	for _, p := range res.Packages {
		m := byPath[p.PkgPath]
		if m == nil {
			continue
		}
		// The go command writes a name that is not UTF-8 with U+FFFD in
		// its place: compare as it writes them.
		read := map[string]bool{}
		for _, f := range p.GoFiles {
			read[asGoWrites(filepath.Base(f))] = true
		}
		for _, f := range m.IgnoredFiles {
			if read[filepath.Base(f)] {
				return fmt.Sprintf("%s: the go command leaves out %s by its build constraints, the loading read it", p.PkgPath, filepath.Base(f))
			}
		}
		for _, f := range m.GoFiles {
			if b := asGoWrites(filepath.Base(f)); !read[b] && !problem[b] {
				return fmt.Sprintf("%s: the go command builds %s, the loading left it out", p.PkgPath, b)
			}
		}
	}
	return ""
}

// asGoWrites is a file name as the go command writes it: each byte that
// is not part of valid UTF-8 as U+FFFD.
func asGoWrites(name string) string { return string([]rune(name)) }
