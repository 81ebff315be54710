package plegvet_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// In a checkout, keys from a staging module's gate list resolve through
// its source; findings carry related positions.
func TestGatesCheckout(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod": "module k8s.io/kubernetes\n",
		"staging/src/k8s.io/apiserver/pkg/features/features.go": `package features

import "k8s.io/component-base/featuregate"

const Renamed featuregate.Feature = "ServerRenamed"
`,
		"pkg/features/kube_features.go": `package features

import (
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"
)

var old = map[featuregate.Feature]featuregate.FeatureSpec{
	genericfeatures.Renamed: {Default: true, PreRelease: featuregate.Beta},
}

var again = map[featuregate.Feature]featuregate.FeatureSpec{
	genericfeatures.Renamed: {Default: false, PreRelease: featuregate.Beta},
}
`,
	})
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Gate("ServerRenamed")
	if g == nil || g.Unresolved != "" || g.Decl == nil || g.Decl.File != "staging/src/k8s.io/apiserver/pkg/features/features.go" || g.Decl.Line != 5 {
		t.Fatalf("gate = %+v, want ServerRenamed resolved through staging", g)
	}
	if len(rep.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %+v, want one conflicting-spec", rep.Diagnostics)
	}
	d := rep.Diagnostics[0]
	if d.Category != "conflicting-spec" || d.Pos != (answer.Pos{File: "pkg/features/kube_features.go", Line: 13, Column: 2}) ||
		len(d.Related) != 1 || d.Related[0].Pos.Line != 9 || !strings.Contains(d.Related[0].Message, "first declared in old") {
		t.Errorf("diagnostic = %+v", d)
	}
	// The same conflict, as data.
	want := []answer.RegistrationConflict{{Gate: "ServerRenamed", First: d.Related[0].Pos, Again: d.Pos, Message: d.Message}}
	if !slices.Equal(rep.Conflicts, want) {
		t.Errorf("Conflicts =\n%+v\nwant\n%+v", rep.Conflicts, want)
	}
}

// A checkout whose pkg/features relists staging modules' gates: every
// entry is a registration of its gate, in JSON; the one whose specs
// differ is a conflicting-registration diagnostic at both entries, each
// naming the other, in component-base's words; the kept gate, and so the
// feature list, is the staging module's, as before.
func TestGatesRegistrations(t *testing.T) {
	const (
		staging = "staging/src/k8s.io/apiserver/pkg/features/kube_features.go"
		logs    = "staging/src/k8s.io/component-base/logs/api/v1/kube_features.go"
		kube    = "pkg/features/kube_features.go"
	)
	root := writeTree(t, map[string]string{
		"go.mod":                                   "module k8s.io/kubernetes\n",
		"staging/src/k8s.io/apiserver/go.mod":      "module k8s.io/apiserver\n",
		"staging/src/k8s.io/component-base/go.mod": "module k8s.io/component-base\n",
		staging: `package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	Compression featuregate.Feature = "Compression"
	Bookmarks   featuregate.Feature = "Bookmarks"
)

var serverGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	Compression: {
		{Version: version.MustParse("1.16"), Default: true, PreRelease: featuregate.Beta},
	},
	Bookmarks: {
		{Version: version.MustParse("1.17"), Default: true, PreRelease: featuregate.GA},
	},
}
`,
		logs: `package v1

import "k8s.io/component-base/featuregate"

const Structured featuregate.Feature = "Structured"

var logGates = map[featuregate.Feature]featuregate.FeatureSpec{
	Structured: {Default: true, PreRelease: featuregate.Beta},
}
`,
		kube: `package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	genericfeatures "k8s.io/apiserver/pkg/features"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/component-base/featuregate"
)

const Own featuregate.Feature = "Own"

var kubeGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	Own: {
		{Version: version.MustParse("1.36"), Default: false, PreRelease: featuregate.Alpha},
	},
	genericfeatures.Compression: {
		{Version: version.MustParse("1.16"), Default: false, PreRelease: featuregate.Beta},
	},
	genericfeatures.Bookmarks: {
		{Version: version.MustParse("1.17"), Default: true, PreRelease: featuregate.GA},
	},
	logsapi.Structured: {
		{Version: version.MustParse("1.19"), Default: true, PreRelease: featuregate.Beta},
	},
}
`,
	})
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	at := func(file string, line, col int) answer.Pos { return answer.Pos{File: file, Line: line, Column: col} }
	for _, c := range []struct {
		gate     string
		kept     string       // the file of the gate's own fields
		entries  []answer.Pos // its registrations, sorted
		packages []string
	}{
		{"Own", kube, []answer.Pos{at(kube, 13, 2)}, []string{"k8s.io/kubernetes/pkg/features"}},
		{"Compression", staging, []answer.Pos{at(kube, 16, 2), at(staging, 14, 2)}, []string{"k8s.io/kubernetes/pkg/features", "k8s.io/apiserver/pkg/features"}},
		{"Bookmarks", staging, []answer.Pos{at(kube, 19, 2), at(staging, 17, 2)}, []string{"k8s.io/kubernetes/pkg/features", "k8s.io/apiserver/pkg/features"}},
		{"Structured", logs, []answer.Pos{at(kube, 22, 2), at(logs, 8, 2)}, []string{"k8s.io/kubernetes/pkg/features", "k8s.io/component-base/logs/api/v1"}},
	} {
		g := rep.Gate(c.gate)
		if g == nil {
			t.Errorf("no gate %s", c.gate)
			continue
		}
		if g.File != c.kept {
			t.Errorf("%s: kept the entry of %s, want %s's", c.gate, g.File, c.kept)
		}
		var entries []answer.Pos
		var pkgs []string
		for _, r := range g.Registrations {
			entries, pkgs = append(entries, r.Entry), append(pkgs, r.Package)
			if r.File != r.Entry.File || len(r.Specs) != 1 || r.Specs[0].Pos.File != r.File {
				t.Errorf("%s: registration %+v", c.gate, r)
			}
		}
		if !slices.Equal(entries, c.entries) || !slices.Equal(pkgs, c.packages) {
			t.Errorf("%s: registrations at %v of %v, want %v of %v", c.gate, entries, pkgs, c.entries, c.packages)
		}
	}
	// Compression's default differs; Structured is unversioned in its
	// module, which component-base keeps at 0.0, not 1.19. Bookmarks is
	// the same in both.
	want := []struct {
		at, other answer.Pos
		message   string
	}{
		{at(kube, 16, 2), at(staging, 14, 2), `feature gate "Compression" with different spec already exists: [{true false BETA 1.16 <nil>}]: registered by k8s.io/apiserver/pkg/features, then by k8s.io/kubernetes/pkg/features with [{false false BETA 1.16 <nil>}]; component-base refuses the second`},
		{at(kube, 22, 2), at(logs, 8, 2), `feature gate "Structured" with different spec already exists: [{true false BETA 0.0 <nil>}]: registered by k8s.io/component-base/logs/api/v1, then by k8s.io/kubernetes/pkg/features with [{true false BETA 1.19 <nil>}]; component-base refuses the second`},
		{at(staging, 14, 2), at(kube, 16, 2), `feature gate "Compression" with different spec already exists: [{true false BETA 1.16 <nil>}]`},
		{at(logs, 8, 2), at(kube, 22, 2), `feature gate "Structured" with different spec already exists: [{true false BETA 0.0 <nil>}]`},
	}
	if len(rep.Diagnostics) != len(want) {
		t.Fatalf("diagnostics = %+v, want %d", rep.Diagnostics, len(want))
	}
	for _, w := range want {
		found := false
		for _, d := range rep.Diagnostics {
			if d.Pos == w.at && len(d.Related) == 1 && d.Related[0].Pos == w.other && d.Category == "conflicting-registration" && strings.HasPrefix(d.Message, w.message) {
				found = true
			}
		}
		if !found {
			t.Errorf("no conflicting-registration at %v (related %v): %q\ngot %+v", w.at, w.other, w.message, rep.Diagnostics)
		}
	}
	conflicts := rep.Conflicts
	if len(conflicts) != 2 {
		t.Fatalf("Conflicts = %+v, want Compression and Structured", conflicts)
	}
	for _, c := range conflicts {
		switch c.Gate {
		case "Compression":
			if c.First != at(staging, 14, 2) || c.Again != at(kube, 16, 2) {
				t.Errorf("Compression: %+v", c)
			}
		case "Structured":
			if c.First != at(logs, 8, 2) || c.Again != at(kube, 22, 2) {
				t.Errorf("Structured: %+v", c)
			}
		default:
			t.Errorf("conflict %+v", c)
		}
	}
	// The feature list keeps one entry per gate.
	var buf strings.Builder
	if err := rep.WriteFeatureList(&buf, true); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "- name: Compression\n"); n != 1 {
		t.Errorf("the list names Compression %d times:\n%s", n, buf.String())
	}
}

// On real releases every entry of pkg/features' feature maps is a
// registration in Gates, at its place, the entries keyed by a staging
// module's constant included (v1.25's unversioned map relists 11 of
// apiserver's gates, v1.37's versioned one 45: each a registration of a
// gate whose kept entry is the staging module's), and no release
// registers a gate twice with specs component-base refuses (v1.30's
// apiserver registers one again in a map built for a FeatureGate of its
// own, which is not compared). The entries are found in the release's own
// source, by syntax.
func TestRegistrationsOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases and their staging modules")
	}
	ctx := context.Background()
	for _, v := range []string{"v1.25.16", "v1.30.14", "v1.32.13", "v1.37.2"} {
		t.Run(v, func(t *testing.T) {
			fetched, _, err := parallelFetcher.FetchWithStaging(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			entries := featureMapEntries(t, fetched.Dir, "pkg/features")
			rep, err := plegvet.Gates(ctx, plegvet.Options{Kubernetes: v})
			if err != nil {
				t.Fatal(err)
			}
			const pkgFeatures = "k8s.io/kubernetes/pkg/features"
			registered := map[answer.Pos]string{} // pkg/features' registrations
			total, relisted, again := 0, 0, 0
			for _, g := range rep.Gates {
				total += len(g.Registrations)
				for _, r := range g.Registrations {
					if r.Package != pkgFeatures {
						continue
					}
					registered[r.Entry] = g.Name
					if g.Package != pkgFeatures {
						again++ // another package's entry is the gate's: one entry per gate lost this one
					}
				}
			}
			for at, key := range entries {
				if _, ok := registered[at]; !ok {
					t.Errorf("%s:%d:%d: pkg/features' entry %s is no registration", at.File, at.Line, at.Column, key)
				}
				if strings.Contains(key, ".") {
					relisted++
				}
			}
			for at, name := range registered {
				if _, ok := entries[at]; !ok {
					t.Errorf("%s:%d:%d: registration of %s, where the source has no entry", at.File, at.Line, at.Column, name)
				}
			}
			t.Logf("%s: %d gates, %d registrations; pkg/features: %d map entries (%d keyed by another package's constant), %d registrations, %d of them of a gate whose kept entry is another package's",
				v, len(rep.Gates), total, len(entries), relisted, len(registered), again)
			if relisted == 0 || again == 0 {
				t.Errorf("pkg/features relists no gate of another package: nothing to tell")
			}
			for _, d := range rep.Diagnostics {
				if d.Category == "conflicting-registration" || d.Category == "conflicting-spec" {
					t.Errorf("%s:%d: %s [%s]", d.Pos.File, d.Pos.Line, d.Message, d.Category)
				}
			}
			if cs := rep.Conflicts; len(cs) != 0 {
				t.Errorf("conflicts: %+v", cs)
			}
		})
	}
}

// featureMapEntries finds, by syntax, the entries of the feature maps in
// the non-test Go files of a directory of the tree at root: the keys of
// literals of a map type keyed by featuregate.Feature whose values are
// FeatureSpec or VersionedSpecs, and of index assignments into a
// variable holding one; each at its place, with the key's text.
func featureMapEntries(t *testing.T, root, dir string) map[answer.Pos]string {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	isFeatureMap := func(e ast.Expr) bool {
		m, ok := e.(*ast.MapType)
		if !ok {
			return false
		}
		val := types.ExprString(m.Value)
		return types.ExprString(m.Key) == "featuregate.Feature" && (val == "featuregate.FeatureSpec" || val == "featuregate.VersionedSpecs")
	}
	out := map[answer.Pos]string{}
	key := func(k ast.Expr) {
		p := fset.Position(k.Pos())
		rel, err := filepath.Rel(root, p.Filename)
		if err != nil {
			t.Fatal(err)
		}
		out[answer.Pos{File: filepath.ToSlash(rel), Line: p.Line, Column: p.Column}] = types.ExprString(k)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		mapVars := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				for i, v := range vs.Values {
					if lit, ok := v.(*ast.CompositeLit); ok && isFeatureMap(lit.Type) && i < len(vs.Names) {
						mapVars[vs.Names[i].Name] = true
					}
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if isFeatureMap(n.Type) {
					for _, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							key(kv.Key)
						}
					}
				}
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if ix, ok := l.(*ast.IndexExpr); ok {
						if id, ok := ix.X.(*ast.Ident); ok && mapVars[id.Name] {
							key(ix.Index)
						}
					}
				}
			}
			return true
		})
	}
	return out
}
