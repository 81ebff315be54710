package runtimeread

import (
	"bytes"
	"context"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/runtimestream"
)

// marks are the words a file must hold to be worth parsing.
var marks = [][]byte{[]byte(runtimestream.MethodName), []byte(runtimestream.RegisterFunc), []byte(runtimestream.UnimplementedServer)}

// scan walks the module rooted at dir and returns the directories
// (relative, with '/') of the packages that hold a mark of a CRI server,
// in order, and the files it could not read. Like the go command, it
// skips vendor and testdata directories, those whose names start with
// '.' or '_', and nested modules; test files are not part of a server.
func scan(ctx context.Context, dir string) (pkgs []string, problems []string, err error) {
	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled = "linux", "amd64", true
	found := map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel := relSlash(dir, p)
		if err != nil {
			if p == dir {
				return err
			}
			problems = append(problems, fmt.Sprintf("%s: %v", inputfile.QuoteName(rel), inputfile.OneLine(inputfile.Cause(err).Error())))
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p == dir {
				return nil
			}
			if name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if st, err := os.Lstat(filepath.Join(p, "go.mod")); err == nil && st.Mode().IsRegular() {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || found[path.Dir(rel)] {
			return nil
		}
		src, err := inputfile.Read(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s", inputfile.QuoteName(rel), err))
			return nil
		}
		if !slices.ContainsFunc(marks, func(m []byte) bool { return bytes.Contains(src, m) }) {
			return nil
		}
		ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
		if ok, err := ctxt.MatchFile(filepath.Dir(p), name); err != nil || !ok {
			return nil // not built on linux/amd64, where kubelets run
		}
		f, _ := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if f != nil && runtimestream.FileHasMark(f) {
			found[path.Dir(rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return slices.Sorted(maps.Keys(found)), problems, nil
}

func relSlash(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}
