package engine

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/srcload"
)

// LoadPackages is the driver's fallback, multichecker's loading with
// -test=false: every package of the import graph the patterns match,
// type-checked from source by go/packages; on ./pkg/... of a checkout it
// holds about 4 GiB. Ending ctx interrupts the go command, and kills it
// if it lingers (go/packages' own handling).
func LoadPackages(ctx context.Context, patterns []string) ([]*packages.Package, error) {
	cfg := &packages.Config{Context: ctx, Mode: packages.LoadAllSyntax | packages.NeedModule, ParseFile: parseFile}
	return packages.Load(cfg, patterns...)
}

// AnalyzePackages runs the analyzers over LoadPackages' packages, which
// go/packages types even when they have errors, as multichecker does.
func AnalyzePackages(analyzers []*analysis.Analyzer, pkgs []*packages.Package, opts *Options) (*Graph, error) {
	return checker.Analyze(analyzers, pkgs, opts)
}

// parseFile parses as go/packages does, with the file's //line directives
// made plain comments (srcload.WithoutLineDirectives): positions name the
// file read, as in Load. The go command's cgo output is left as it is:
// its directives name the package's own .go files.
func parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	if base := filepath.Base(filename); !strings.HasPrefix(base, "_cgo_") && !strings.HasSuffix(base, ".cgo1.go") {
		src = srcload.WithoutLineDirectives(src)
	}
	return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments)
}
