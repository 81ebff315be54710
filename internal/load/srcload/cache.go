package srcload

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"golang.org/x/tools/go/packages"
)

// Cache keeps, from one load to the next, the files parsed and the
// packages type-checked (Imports.Cache): what a language server needs to
// answer an edit by re-checking the edited package and, among the loaded
// ones, those that import it, and nothing else. Entries the last load did
// not use are dropped, files from the FileSet too, so the cache holds one
// load's worth however many loads it served.
type Cache struct {
	fset    *token.FileSet
	pkgs    map[string]*types.Package // models and stubs: the same objects in every load
	files   map[fileKey]*cachedFile
	checked map[string]*checkedPkg
	used    map[fileKey]bool // the files the running load read
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{fset: token.NewFileSet(), pkgs: map[string]*types.Package{}, files: map[fileKey]*cachedFile{}, checked: map[string]*checkedPkg{}}
}

// fileKey is a file as parsed: its name on disk, its name in the FileSet
// and the parser's mode (with or without comments).
type fileKey struct {
	filename, name string
	mode           parser.Mode
}

type cachedFile struct {
	src []byte
	parsed
}

// checkedPkg is a package as checked, with what its importer answered,
// in the order asked: the package is still valid when its files are the
// same and each import gets the same answer.
type checkedPkg struct {
	pkg          *packages.Package
	files        []*ast.File
	ignoreBodies bool
	imports      []importAnswer
}

type importAnswer struct {
	path string
	pkg  *types.Package
}

// Stats say what the cache holds: for a test or a benchmark to see that
// it does not grow with the number of loads.
type Stats struct {
	Files, Packages int
	// FileSetFiles counts the FileSet's files, the built-in models'
	// included.
	FileSetFiles int
}

// Stats counts the cache's entries.
func (c *Cache) Stats() Stats {
	n := 0
	for range c.fset.Iterate {
		n++
	}
	return Stats{Files: len(c.files), Packages: len(c.checked), FileSetFiles: n}
}

// end drops what the load that ends did not use.
func (c *Cache) end(checked map[string]*packages.Package) {
	maps.DeleteFunc(c.checked, func(path string, cp *checkedPkg) bool { return checked[path] != cp.pkg })
	for k, f := range c.files {
		if !c.used[k] {
			c.drop(k, f)
		}
	}
	c.used = nil
}

func (c *Cache) drop(k fileKey, f *cachedFile) {
	if f.file != nil {
		if tf := c.fset.File(f.file.FileStart); tf != nil {
			c.fset.RemoveFile(tf)
		}
	}
	delete(c.files, k)
}

// reuse returns the cached check of a package when it still holds: the
// same files, checked alike, and every import answered as before (each
// import is answered again, which checks a changed import first). It
// returns nil, nil when the package must be checked again.
func (l *loader) reuse(ctx context.Context, importPath string, pp *parsedPkg, ignoreBodies bool, stack []string) (*packages.Package, error) {
	if l.Cache == nil {
		return nil, nil
	}
	cp, ok := l.Cache.checked[importPath]
	if !ok || cp.ignoreBodies != ignoreBodies || !slices.Equal(cp.files, pp.files) {
		return nil, nil
	}
	scratch := &packages.Package{PkgPath: importPath, Imports: map[string]*packages.Package{}}
	for _, a := range cp.imports {
		dep, err := l.importFor(ctx, a.path, stack, scratch)
		if err != nil && !errors.Is(err, errStubbed) {
			return nil, err
		}
		if dep != a.pkg {
			return nil, nil
		}
	}
	return cp.pkg, nil
}

// dirNames are the names of a directory's entries, with the overlay's
// files in it that the disk lacks, in order.
func (l *loader) dirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	onDisk := len(names)
	overlaid := false
	for path := range l.Overlay {
		if filepath.Dir(path) == dir {
			overlaid = true
			if name := filepath.Base(path); !slices.Contains(names[:onDisk], name) {
				names = append(names, name)
			}
		}
	}
	if err != nil && !overlaid {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}
