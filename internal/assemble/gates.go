package assemble

import (
	"context"
	"errors"
	"fmt"
	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/check/stalelist"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/load/gatescan"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/internal/load/treelists"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/srcpos"
	"go/token"
	"golang.org/x/tools/go/analysis"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Gates reads every feature gate of the tree and checks them: the feature
// maps (recognised by their types) of every package of pkg/ and of every
// staging module, as Kubernetes' own feature-list generator walks them.
// For a release (Options.Kubernetes), the staging modules its go.mod
// requires are fetched with it; one the proxy does not serve is named in
// Unfetched (a whole list is then not whole). Names, when given, keep only
// those gates; a name the tree does not declare is an error.
func Gates(ctx context.Context, opts Options, names ...string) (*answer.GatesReport, error) {
	t, src, missing, err := openWithStaging(ctx, opts)
	if err != nil {
		return nil, err
	}
	// The whole list is kept, once per release; names pick from it.
	rep, err := cached(opts, t, append([]string{"Gates", "unfetched"}, missing...), func() (*answer.GatesReport, error) {
		rep, err := allGates(ctx, t, src)
		if err != nil {
			return nil, err
		}
		rep.Unfetched = missing
		var problem string
		if rep.Lifecycle, problem = treelists.Lifecycle(t); problem != "" {
			rep.Source.Load.Problems = append(rep.Source.Load.Problems, problem)
		}
		if rep.Markdown, problem = treelists.Markdown(t); problem != "" {
			rep.Source.Load.Problems = append(rep.Source.Load.Problems, problem)
		}
		return rep, nil
	})
	if err != nil {
		return nil, err
	}
	if err := keepOnly(rep, names); err != nil {
		return nil, err
	}
	return rep, nil
}

// keepOnly keeps the named gates, in the order named; a name matches a
// gate's name or its constant's identifier. A name no gate has is an
// error.
func keepOnly(r *answer.GatesReport, names []string) error {
	if len(names) == 0 {
		return nil
	}
	keep := r.Gates[:0:0]
	for _, n := range names {
		g := r.Find(n)
		if g == nil {
			return &UnknownGateError{Name: n, Where: r.Source.Dir + ": the tree", DidYouMean: render.Closest(n, r.Names())}
		}
		keep = append(keep, *g)
	}
	r.Gates = keep
	return nil
}

// analysedGates reads the featuregate analyzer's outcome on pkg/features.
func analysedGates(a *analysed) (*answer.GatesReport, error) {
	out, err := a.outcome(featuregate.Analyzer, answer.FeaturesPackage)
	if err != nil {
		return nil, err
	}
	result := out.Result.(*featuregate.Result)
	found := result.Declared
	if len(found.Maps) == 0 {
		return nil, fmt.Errorf("%s: no feature maps (map[featuregate.Feature]featuregate.FeatureSpec or ...VersionedSpecs from %s) in %s%s", a.src.Dir, featuregates.APIPath, answer.FeaturesPackage, a.unreadIn(answer.FeaturesPackage))
	}
	rep := &answer.GatesReport{SchemaVersion: answer.SchemaVersion, Source: a.src, Diagnostics: diagnostics(a.res.Fset, out.Diagnostics)}
	rep.Conflicts = conflicts(a.res.Fset, nil, result.Conflicts)
	// The staging modules' go.mod files are read only when a gate's file
	// lies in one: pkg/features' gates are the tree's own module's.
	var staging map[string]string
	moduleOf := func(file string) string {
		if staging == nil && strings.HasPrefix(file, "staging/src/") {
			staging, _ = a.tree.StagingModules()
		}
		return a.tree.ModuleOf(file, staging)
	}
	registrations := map[string][]answer.Registration{}
	rep.Gates = gatesOf(a.res.Fset, found, a.tree.Module+"/"+answer.FeaturesPackage, moduleOf, registrations)
	for i := range rep.Gates {
		rep.Gates[i].Registrations = sortedRegistrations(registrations[rep.Gates[i].Name])
		rep.Gates[i].SetInCode = setInCode(result.Writes, rep.Gates[i].Name)
	}
	return rep, nil
}

func gate(fset *token.FileSet, g *featuregates.Gate) answer.Gate {
	jg := answer.Gate{
		Name: g.Name, Decl: srcpos.At(fset, g.DeclPos), Entry: srcpos.Of(fset, g.EntryPos), Map: g.Map, Format: g.Format,
		Specs: []answer.Spec{}, Dependencies: []string{}, Unresolved: g.Unresolved, Assigned: g.Assigned,
	}
	for _, s := range g.Specs {
		at := srcpos.Of(fset, s.Start)
		s = s.WithoutSyntax()
		s.Pos = at
		jg.Specs = append(jg.Specs, s)
	}
	if g.KeyConst != nil && g.KeyConst.Name() != g.Name {
		jg.Const = g.KeyConst.Name()
	}
	for _, d := range g.DependsOn {
		jg.Dependencies = append(jg.Dependencies, d.Name)
	}
	return jg
}

// allGates loads the tree's feature map packages, runs the featuregate
// analyzer over them and gathers their gates.
func allGates(ctx context.Context, t *tree.Tree, src answer.Source) (*answer.GatesReport, error) {
	staging, bad := t.StagingModules()
	var problems []string
	for _, err := range bad {
		problems = append(problems, err.Error())
	}
	paths, walkProblems, err := gatescan.Packages(ctx, t, staging)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Dir, err)
	}
	problems = append(problems, walkProblems...)
	if len(paths) == 0 && len(problems) > 0 {
		// A file that did not parse may be the one that imports the API.
		return nil, fmt.Errorf("%s; no other package of pkg/ or of a staging module imports %s: no feature maps", strings.Join(problems, "; "), featuregates.APIPath)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no package of pkg/ or of a staging module imports %s: no feature maps", src.Dir, featuregates.APIPath)
	}
	res, err := load(ctx, t, &src, suite.FromSource, problems, []*analysis.Analyzer{featuregate.Analyzer}, nil, paths...)
	if err != nil {
		return nil, err
	}
	rep := &answer.GatesReport{SchemaVersion: answer.SchemaVersion, Source: src, Gates: []answer.Gate{}, Diagnostics: []answer.Diagnostic{}}
	nMaps := 0
	byName := map[string]int{}
	registrations := map[string][]answer.Registration{}
	var writes []featuregates.GateWrite // in code, by every package read
	for _, pkg := range res.Packages {
		out := res.Root(featuregate.Analyzer, pkg.PkgPath)
		if out == nil {
			continue
		}
		if out.Err != nil {
			return nil, fmt.Errorf("%s: %s: %w", src.Dir, pkg.PkgPath, out.Err)
		}
		result := out.Result.(*featuregate.Result)
		found := result.Declared
		writes = append(writes, result.Writes...)
		rep.Diagnostics = append(rep.Diagnostics, diagnostics(res.Fset, withoutLocalReads(out.Diagnostics, found))...)
		rep.Conflicts = conflicts(res.Fset, rep.Conflicts, result.Conflicts)
		nMaps += len(found.Maps)
		for _, g := range gatesOf(res.Fset, found, pkg.PkgPath, func(file string) string { return t.ModuleOf(file, staging) }, registrations) {
			if i, ok := byName[g.Name]; ok {
				// Declared again (pkg/features repeats staging modules'
				// gates): the declaring package's entry is the one
				// kept, then a listed one; every entry is in
				// Registrations, and conflicting-registration says if
				// component-base refuses one.
				// Dependencies are registered per gate wherever a
				// dependency map names it (pkg/features names staging
				// modules' gates): the gate has them all.
				deps := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(rep.Gates[i].Dependencies), g.Dependencies...))))
				if deps == nil {
					deps = []string{} // JSON's [], as every gate's
				}
				if prefer(g, rep.Gates[i]) {
					rep.Gates[i] = g
				}
				rep.Gates[i].Dependencies = deps
				continue
			}
			byName[g.Name] = len(rep.Gates)
			rep.Gates = append(rep.Gates, g)
		}
	}
	if nMaps == 0 {
		// As report says it: a file of those packages that did not parse
		// may hold the maps.
		rels := make([]string, len(paths))
		for i, p := range paths {
			rels[i] = t.Rel(t.PackageDir(p))
		}
		unread := (&analysed{tree: t, src: src, res: res}).unreadIn(rels...)
		return nil, fmt.Errorf("%s: no feature maps (map[featuregate.Feature]featuregate.FeatureSpec or ...VersionedSpecs from %s) in %d packages of pkg/ and the staging modules that import it%s", src.Dir, featuregates.APIPath, len(paths), unread)
	}
	sort.Slice(rep.Gates, func(i, j int) bool { return rep.Gates[i].Name < rep.Gates[j].Name })
	for i := range rep.Gates {
		rep.Gates[i].Registrations = sortedRegistrations(registrations[rep.Gates[i].Name])
		rep.Gates[i].SetInCode = setInCode(writes, rep.Gates[i].Name)
	}
	noteUnfollowed(&rep.Source, rep.Diagnostics)
	for _, w := range writes {
		if w.Unresolved != "" { // it may write any gate: not followed
			rep.Source.Load.Unfollowed = append(rep.Source.Load.Unfollowed, fmt.Sprintf("%s:%d:%d: %s sets feature gates in code, but plegvet could not read what: %s", w.Pos.File, w.Pos.Line, w.Pos.Column, w.Func, w.Unresolved))
		}
	}
	listNames, problem := treeListNames(t)
	if problem != "" {
		rep.Source.Load.Problems = append(rep.Source.Load.Problems, problem)
	}
	rep.ListNames = rep.NamingOf(listNames)
	return rep, nil
}

// gatesOf is the gates of package pkg's feature maps (found); it adds
// each entry, but those an assignment replaces, to registrations.
func gatesOf(fset *token.FileSet, found *featuregates.Result, pkg string, moduleOf func(file string) string, registrations map[string][]answer.Registration) []answer.Gate {
	for _, e := range found.Entries {
		if !overwritten(e, found.Entries) {
			registrations[e.Name] = append(registrations[e.Name], registration(fset, e, moduleOf(srcpos.Of(fset, e.EntryPos).File), pkg))
		}
	}
	gates := []answer.Gate{}
	for _, fg := range found.Gates {
		g := gate(fset, fg)
		g.File = g.Entry.File
		g.Module = moduleOf(g.Entry.File)
		g.Package = pkg
		g.Listed = fg.InList()
		gates = append(gates, g)
	}
	return gates
}

// registration is entry e of a feature map of package pkg, in module.
func registration(fset *token.FileSet, e *featuregates.Gate, module, pkg string) answer.Registration {
	g := gate(fset, e)
	return answer.Registration{
		Module: module, Package: pkg, File: g.Entry.File, Map: g.Map, Format: g.Format,
		Entry: g.Entry, Specs: g.Specs, Unresolved: g.Unresolved, Assigned: g.Assigned, Local: !e.PackageLevel(),
	}
}

// sortedRegistrations sorts registrations by file and position.
func sortedRegistrations(regs []answer.Registration) []answer.Registration {
	sort.SliceStable(regs, func(i, j int) bool { return regs[i].Entry.Before(regs[j].Entry) })
	return regs
}

// overwritten reports whether an index assignment replaces entry e in its
// map (featuregates.Gate.Overwrites): e is then no registration.
func overwritten(e *featuregates.Gate, entries []*featuregates.Gate) bool {
	return slices.ContainsFunc(entries, func(o *featuregates.Gate) bool { return o != e && o.Name == e.Name && o.Overwrites(e) })
}

// conflicts adds the featuregate analyzer's conflicts (found) to into, in
// the order of their diagnostics (by the entry refused), each pair of
// entries once: conflicting-registration is reported by every package
// that registers a gate again.
func conflicts(fset *token.FileSet, into []answer.RegistrationConflict, found []featuregate.Conflict) []answer.RegistrationConflict {
	cs := make([]answer.RegistrationConflict, 0, len(found))
	for _, c := range found {
		cs = append(cs, answer.RegistrationConflict{Gate: c.Gate, First: srcpos.Of(fset, c.First), Again: srcpos.Of(fset, c.Again), Message: c.Message})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Again.Before(cs[j].Again) })
	for _, c := range cs {
		if !slices.ContainsFunc(into, func(o answer.RegistrationConflict) bool { return o.First == c.First && o.Again == c.Again }) {
			into = append(into, c)
		}
	}
	return into
}

// prefer says whether gate g, declared again, is to replace kept: its
// constant is declared in its own package and kept's is not, or, that
// equal, it is listed and kept is not.
func prefer(g, kept answer.Gate) bool {
	own := func(g answer.Gate) bool { return g.Decl != nil && path.Dir(g.Decl.File) == path.Dir(g.File) }
	if own(g) != own(kept) {
		return own(g)
	}
	return g.Listed && !kept.Listed
}

// ReferenceLists returns where Kubernetes keeps its generated feature
// list, relative to the tree's root: since v1.33, and in v1.32. The slice
// is new on each call.
func ReferenceLists() []string {
	return []string{
		"test/compatibility_lifecycle/reference/versioned_feature_list.yaml",
		"test/featuregates_linter/test_data/versioned_feature_list.yaml",
	}
}

// treeListNames reads the names of the tree's own feature list, if it
// has one: nil when it has none. A list there that cannot be read or is
// not in the list's format is a problem: the naming then defaults.
func treeListNames(t *tree.Tree) ([]string, string) {
	for _, rel := range ReferenceLists() {
		name := filepath.Join(t.Dir, filepath.FromSlash(rel))
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		data, err := inputfile.Read(name)
		if err != nil {
			return nil, fmt.Sprintf("%s: %v (its gates' naming not read)", rel, err)
		}
		list, err := featurelist.Parse(rel, data)
		if err != nil {
			return nil, err.Error() + " (its gates' naming not read)"
		}
		return stalelist.ListNames(list), ""
	}
	return nil, ""
}

// withoutLocalReads drops the findings that a function's local feature
// map, built by a call, could not be read (featuregates.Problem.Local):
// across a whole tree such maps read the gates a registry holds (its
// GetAll) rather than declare any, and Kubernetes' list cannot hold them.
// The featuregate analyzer, run as a linter, still reports them.
func withoutLocalReads(ds []analysis.Diagnostic, found *featuregates.Result) []analysis.Diagnostic {
	local := map[token.Pos]bool{} // a set, not a scan per finding: a generated map may hold thousands
	for _, p := range found.Problems {
		if p.Local {
			local[p.Pos] = true
		}
	}
	return slices.DeleteFunc(slices.Clone(ds), func(d analysis.Diagnostic) bool {
		return d.Category == string(featuregate.GateUnreadable) && local[d.Pos]
	})
}

// setInCode are the writes of the gate named name among writes.
func setInCode(writes []featuregates.GateWrite, name string) []featuregates.GateWrite {
	var out []featuregates.GateWrite
	for _, w := range writes {
		if w.Gate == name {
			out = append(out, w)
		}
	}
	return out
}
