package gatefacts

import (
	_ "embed"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/internal/analyzerdoc"
	"github.com/plegvet/plegvet/featuregates"
)

//go:embed doc.go
var docGo string

// Analyzer reads feature gates and exports them as facts. It has no
// settings: one instance serves every configuration of the analyzers
// that require it, and its facts are computed once.
var Analyzer = &analysis.Analyzer{
	Name:             "gatefacts",
	Doc:              analyzerdoc.Extract(docGo, "gatefacts"),
	URL:              "https://pkg.go.dev/github.com/plegvet/plegvet/analyzer/gatefacts",
	Run:              run,
	RunDespiteErrors: true, // partially typed release sources still have gates
	FactTypes:        []analysis.Fact{new(GateFact), new(PackageGates)},
	ResultType:       reflect.TypeFor[*Result](),
}

// Result is what the analyzer found in one package: the gates it declares,
// and the gates of other packages it refers to, with their facts, so that
// analyzers that require this one see what Enabled(features.X) tests.
type Result struct {
	Declared *featuregates.Result
	// Writes are the package's writes of gates in code (gateWrites),
	// read when it declares gates.
	Writes []featuregates.GateWrite
	Used   map[*types.Const]*GateFact
	// codeWrites are every write of a gate in the package's code, as
	// featuregates.GateWrites finds them, when read (codeWritesRead: the
	// package imports the feature-gate API): CodeWrites.
	codeWrites     []featuregates.GateWrite
	codeWritesRead bool
	// imported are the PackageGates facts of the direct imports, in
	// import order.
	imported []importedGates
}

// importedGates is a direct import's PackageGates fact.
type importedGates struct {
	path  string
	gates *PackageGates
}

// Registration is a gate as a direct import registers it: the import's
// path and its fact of the gate.
type Registration struct {
	Package string
	Fact    *GateFact
}

// Gate returns the fact of a gate constant this package declares or uses.
func (r *Result) Gate(c *types.Const) *GateFact {
	if c == nil {
		return nil
	}
	if f, ok := r.Used[c]; ok {
		return f
	}
	for _, g := range r.Declared.Gates {
		if g.KeyConst == c {
			return newGateFact(g)
		}
	}
	return nil
}

// Imported returns the gate of that name declared by a direct import (the
// first in import order that declares it), or nil.
func (r *Result) Imported(name string) *GateFact {
	if regs := r.Registrations(name); len(regs) > 0 {
		return regs[0].Fact
	}
	return nil
}

// Registrations returns the gate of that name as each direct import that
// declares it registers it, in import order: the registrations that come
// before this package's own (an imported package is initialised first).
// A fact read from an import carries its entry's place (Fact.Entry).
func (r *Result) Registrations(name string) []Registration {
	var out []Registration
	for _, ig := range r.imported {
		if f := ig.gates.Gate(name); f != nil {
			out = append(out, Registration{Package: ig.path, Fact: f})
		}
	}
	return out
}

func run(pass *analysis.Pass) (any, error) {
	res := &Result{Declared: &featuregates.Result{}, Used: map[*types.Const]*GateFact{}}
	if importsAPI(pass.Pkg) {
		res.Declared = featuregates.Extract(pass.Files, pass.TypesInfo)
		res.codeWrites, res.codeWritesRead = featuregates.GateWrites(pass.Fset, pass.Files, pass.TypesInfo), true
		res.Writes = gateWrites(res.codeWrites)
		export(pass, res.Declared, res.Writes)
	}
	for _, imp := range pass.Pkg.Imports() {
		var pg PackageGates
		if pass.ImportPackageFact(imp, &pg) {
			res.imported = append(res.imported, importedGates{imp.Path(), &pg})
		}
	}
	if len(res.imported) > 0 {
		for _, obj := range pass.TypesInfo.Uses {
			c, ok := obj.(*types.Const)
			if !ok || c.Pkg() == pass.Pkg {
				continue
			}
			var f GateFact
			if pass.ImportObjectFact(c, &f) {
				res.Used[c] = &f
			}
		}
	}
	return res, nil
}

// export exports the facts of a package's gates.
func export(pass *analysis.Pass, res *featuregates.Result, writes []featuregates.GateWrite) {
	if len(res.Maps) == 0 {
		return
	}
	all := &PackageGates{}
	for _, g := range res.Gates { // sorted by name
		f := newGateFact(g)
		if g.Value != nil {
			f.Entry = NewFactPos(pass.Fset, g.EntryPos, g.Value.End())
		}
		for _, w := range writes { // and those it could not read, which may be this gate
			if w.Gate == g.Name || w.Unresolved != "" && w.Gate == "" {
				f.SetInCode = append(f.SetInCode, w)
			}
		}
		all.Gates = append(all.Gates, f)
		if g.KeyConst != nil && g.KeyConst.Pkg() == pass.Pkg {
			pass.ExportObjectFact(g.KeyConst, f)
		}
	}
	pass.ExportPackageFact(all)
}

// gateWrites are, of all the package's writes of gates, those in its init
// functions, outside its tests (a test sets gates for itself), without
// their token positions, which mean nothing to an importer: what every binary
// importing the package starts with. A function or method that forwards
// a write (the releases' pkg/features/client_adapter.go hands client-go's
// gates to the feature-gate API) writes what its caller passes, when its
// caller calls it: configuration, not the package's own writes.
func gateWrites(all []featuregates.GateWrite) []featuregates.GateWrite {
	var out []featuregates.GateWrite
	for _, w := range all {
		if strings.HasSuffix(w.Pos.File, "_test.go") || w.Func != "init" {
			continue
		}
		w.At = token.NoPos
		out = append(out, w)
	}
	return out
}

// CodeWrites are every write of a gate in the package's code, as
// featuregates.GateWrites finds them in pass's files: read here where
// this analyzer read them, for an analyzer that requires it (pleg reads
// pkg/kubelet's, which imports the feature-gate API) and need not walk
// the package again.
func (r *Result) CodeWrites(pass *analysis.Pass) []featuregates.GateWrite {
	if r.codeWritesRead {
		return r.codeWrites
	}
	return featuregates.GateWrites(pass.Fset, pass.Files, pass.TypesInfo)
}

// importsAPI reports whether pkg may declare feature maps: it imports
// the feature-gate API, or is client-go's copy of it.
func importsAPI(pkg *types.Package) bool {
	return featuregates.IsClientGo(pkg) || slices.ContainsFunc(pkg.Imports(), featuregates.IsAPI)
}
