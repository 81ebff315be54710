// Package treelists reads a tree's own feature-list generators: the tool
// that holds versioned_feature_list.yaml to its rules, and the generator
// of feature_list.md with the maps its imports register.
package treelists

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
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Lifecycle reads the tree's own feature-list tool and the version it
// calls current (featurelist.GeneratorFile, BinaryVersionFile): nil and
// no problem when the tree has no such tool (before v1.33, or a fork that
// dropped it); a tool or version file that cannot be read is a problem.
func Lifecycle(t *tree.Tree) (*featurelist.Generator, string) {
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

// Markdown reads the tree's Markdown feature-list generator
// (v1.36 on) and the maps its imports register: nil and no problem when
// the tree has none; a generator, script or package that cannot be read
// is a problem.
func Markdown(t *tree.Tree) (*featurelist.MarkdownGenerator, string) {
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
