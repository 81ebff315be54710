package runtimestream

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
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
	"strconv"
	"strings"

	"github.com/plegvet/plegvet/internal/inputfile"
)

// Import paths and names the CRI server is recognised by.
const (
	// CRIAPIPackage is the CRI v1 API's Go package; the kubelet's
	// evented PLEG speaks v1 only (v1alpha2 has no event stream).
	CRIAPIPackage = "k8s.io/cri-api/pkg/apis/runtime/v1"
	grpcCodes     = "google.golang.org/grpc/codes"

	methodName      = "GetContainerEvents"
	requestType     = "GetEventsRequest"
	streamType      = "RuntimeService_GetContainerEventsServer"
	registerFunc    = "RegisterRuntimeServiceServer"
	unimplemented   = "UnimplementedRuntimeServiceServer"
	serverInterface = "RuntimeServiceServer"
)

// marks are the words a file must hold to be worth parsing.
var marks = [][]byte{[]byte(methodName), []byte(registerFunc), []byte(unimplemented)}

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
		if f != nil && fileHasMark(f) {
			found[path.Dir(rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return slices.Sorted(maps.Keys(found)), problems, nil
}

// fileHasMark reports, from syntax alone, whether the file declares a
// GetContainerEvents method with the CRI server's signature, calls the
// CRI v1 API's RegisterRuntimeServiceServer, or embeds its
// UnimplementedRuntimeServiceServer. The type checker confirms later.
func fileHasMark(f *ast.File) bool {
	names := criImportNames(f)
	if len(names) == 0 {
		return false
	}
	isCRI := func(e ast.Expr, name string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != name {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && names[x.Name]
	}
	for n := range ast.Preorder(f) {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Recv != nil && n.Name.Name == methodName {
				ps := flatParams(n.Type.Params)
				if len(ps) == 2 && isStar(ps[0], func(e ast.Expr) bool { return isCRI(e, requestType) }) && isCRI(ps[1], streamType) {
					return true
				}
			}
		case *ast.CallExpr:
			if isCRI(n.Fun, registerFunc) {
				return true
			}
		case *ast.StructType:
			for _, fld := range n.Fields.List {
				if len(fld.Names) == 0 && isCRI(unstar(fld.Type), unimplemented) {
					return true
				}
			}
		}
	}
	return false
}

// criImportNames are the names under which a file imports the CRI v1
// API: its alias, or v1.
func criImportNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil || p != CRIAPIPackage {
			continue
		}
		switch {
		case imp.Name == nil:
			names["v1"] = true
		case imp.Name.Name != "_" && imp.Name.Name != ".":
			names[imp.Name.Name] = true
		}
	}
	return names
}

// flatParams lists a field list's types, one per parameter.
func flatParams(fl *ast.FieldList) []ast.Expr {
	if fl == nil {
		return nil
	}
	var out []ast.Expr
	for _, f := range fl.List {
		for range max(len(f.Names), 1) {
			out = append(out, f.Type)
		}
	}
	return out
}

func isStar(e ast.Expr, inner func(ast.Expr) bool) bool {
	s, ok := e.(*ast.StarExpr)
	return ok && inner(s.X)
}

func unstar(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

func relSlash(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}
