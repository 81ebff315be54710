package driver

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// loadLean is the driver's usual loader: of the packages the go command
// lists (names, files, imports: nothing parsed), it type-checks from
// source only those that can matter (suite.Matters), with the imports the
// suite picks (suite.FromSource) loaded from the tree so that facts flow,
// the others stubbed.
//
// r is nil, with why, when the lean loading cannot answer as the go
// command would; nothing has been printed then. code is >= 0 when the run
// ended here (an error was printed, or nothing matched).
func loadLean(ctx context.Context, o *Options, stderr io.Writer) (r *run, why string, code int) {
	meta, ok := listPackages(ctx, o, stderr)
	if !ok {
		return nil, "", exitFailure
	}
	// The matched packages that can matter.
	roots := slices.DeleteFunc(slices.Clone(meta), func(p *packages.Package) bool {
		return !suite.Matters(p.PkgPath, maps.Keys(p.Imports))
	})
	if len(roots) == 0 {
		// Nothing matched can declare or use what plegvet reads: nothing
		// is parsed, and every mode still says so in its form ("{}", an
		// empty SARIF log).
		return analyzeLean(o, meta, &engine.Loaded{}, stderr)
	}
	t, paths, why := leanTree(roots)
	if why != "" {
		return nil, why, -1
	}
	pick := fromSource(meta)
	res, err := engine.Load(ctx, engine.Request{Tree: t, Paths: paths, FromSource: pick})
	if err != nil {
		o.fail(stderr, err.Error())
		return nil, "", exitFailure
	}
	if why := sourcesDisagree(meta, res, pick); why != "" {
		return nil, why, -1
	}
	if why := filesDisagree(meta, res); why != "" {
		return nil, why, -1
	}
	if why := illTyped(res); why != "" {
		return nil, why, -1
	}
	return analyzeLean(o, meta, res, stderr)
}

// fromSource picks the imports loaded from the tree: the suite's picks,
// and every package of the import graph that imports the feature-gate
// API (or a vendored copy of it), wherever it is (component-base
// registers its logging gates in logs/api/v1): its feature maps'
// registrations are facts a relisting pkg/features is checked against,
// as under go vet.
func fromSource(meta []*packages.Package) func(string) bool {
	declares := map[string]bool{}
	packages.Visit(meta, nil, func(p *packages.Package) {
		for imp := range p.Imports {
			if featuregates.IsAPIPath(imp) {
				declares[p.PkgPath] = true
			}
		}
	})
	return func(path string) bool { return suite.FromSource(path) || declares[path] }
}

// listPackages asks the go command which packages match the patterns,
// with what they import. ok is false when it fails or nothing matched:
// the error is printed.
func listPackages(ctx context.Context, o *Options, stderr io.Writer) (meta []*packages.Package, ok bool) {
	meta, err := packages.Load(&packages.Config{Context: ctx, Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule}, o.Patterns...)
	if err != nil {
		o.fail(stderr, goListError(err, o.Patterns))
		return nil, false
	}
	if len(meta) == 0 {
		fmt.Fprintf(stderr, "plegvet: %s matched no packages\n", o.Text.ErrorLine(strings.Join(o.Patterns, " ")))
		return nil, false
	}
	return meta, true
}

// leanTree opens the module of the working directory and returns the
// import paths of the roots in it; why says, instead, why it cannot stand
// in for the go command. The go command and the tree must agree on where
// each package is, or the positions (and the files -fix writes) would
// differ.
func leanTree(roots []*packages.Package) (t *tree.Tree, paths []string, why string) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, nil, "the working directory: " + err.Error()
	}
	t, err = tree.OpenModule(wd)
	if err != nil {
		return nil, nil, err.Error()
	}
	for _, r := range roots {
		dir := t.PackageDir(r.PkgPath)
		if dir == "" || r.ID != r.PkgPath {
			return nil, nil, r.ID + " is not in the module at " + t.Dir
		}
		if want := goFilesDir(r); want != "" && !sameDir(dir, want) {
			return nil, nil, fmt.Sprintf("%s: the go command reads %s, the tree holds %s", r.PkgPath, want, dir)
		}
		paths = append(paths, r.PkgPath)
	}
	return t, paths, ""
}

// goFilesDir is the directory the go command reads p from; "" without Go
// files.
func goFilesDir(p *packages.Package) string {
	if len(p.GoFiles) == 0 {
		return ""
	}
	return filepath.Dir(p.GoFiles[0])
}

// sourcesDisagree says why the loaded packages' imports are not what the
// go command would read, or "": an import whose facts or constants the
// analysis reads must come from the same files as for the go command.
func sourcesDisagree(meta []*packages.Package, res *engine.Loaded, fromSource func(string) bool) string {
	byImport := map[string]*packages.Package{}
	packages.Visit(meta, nil, func(p *packages.Package) {
		for path, dep := range p.Imports {
			byImport[path] = dep
		}
	})
	for _, s := range res.Stubbed {
		if fromSource(s) && byImport[s] != nil {
			return s + " is needed from source and the tree does not hold it"
		}
	}
	// Every import loaded from the tree, from the same directory as the go
	// command's.
	why := ""
	packages.Visit(res.Packages, func(p *packages.Package) bool {
		for path, dep := range p.Imports {
			if m := byImport[path]; m == nil || !sameDir(goFilesDir(dep), goFilesDir(m)) {
				why = path + ": the go command and the tree disagree on its directory"
				break
			}
		}
		return why == ""
	}, nil)
	return why
}

// analyzeLean runs the analyzers on the packages loaded from source: from
// here on the lean loading answers.
func analyzeLean(o *Options, meta []*packages.Package, res *engine.Loaded, stderr io.Writer) (*run, string, int) {
	failed := printErrors(stderr, meta, o.Text) > 0
	failed = leftOutFeatureMaps(o, meta, res, stderr) || failed
	for _, p := range res.Problems {
		o.fail(stderr, p.Error())
		failed = true
	}
	graph, err := engine.Analyze(o.Analyzers, res.Packages, checkerOptions(o, stderr))
	if err != nil {
		o.fail(stderr, err.Error())
		return nil, "", exitFailure
	}
	return &run{graph: graph, failed: failed, loader: "lean"}, "", -1
}

// sameDir is true when the go command and the tree name a directory
// alike: the same path, so that positions print the same (a directory
// reached through a symbolic link is another name for it, and the
// go/packages loader answers then).
func sameDir(a, b string) bool { return a != "" && filepath.Clean(a) == filepath.Clean(b) }
