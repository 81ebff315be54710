package featuregates_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/internal/testkit/fixturetypes"
)

// extract type-checks one file of package p and extracts its gates. Type
// errors are tolerated, as in partially typed source.
func extract(t *testing.T, src string) (*featuregates.Result, *token.FileSet) {
	t.Helper()
	fset := token.NewFileSet()
	f, info, _, err := fixturetypes.NewImporter(fset, filepath.Join("..", "testdata", "src")).Check("p", src)
	if err != nil {
		t.Fatal(err)
	}
	return featuregates.Extract([]*ast.File{f}, info), fset
}

// summary is a gate in one line: name, specs, unresolved reason.
func summary(g *featuregates.Gate) string {
	var specs []string
	for _, s := range g.Specs {
		x := fmt.Sprintf("%s/%s/%t", s.Version, s.PreRelease, s.Default)
		if s.LockToDefault {
			x += "/locked"
		}
		if s.MinCompatibilityVersion != "" {
			x += "/min" + s.MinCompatibilityVersion
		}
		specs = append(specs, x)
	}
	out := g.Name + " " + string(g.Format) + " [" + strings.Join(specs, " ") + "]"
	if len(g.DependsOn) > 0 {
		var deps []string
		for _, d := range g.DependsOn {
			deps = append(deps, d.Name)
		}
		out += " deps=" + strings.Join(deps, ",")
	}
	if g.Unresolved != "" {
		out += " unresolved"
	}
	return out
}

const header = `package p

import (
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

var _ = genericfeatures.WatchBookmarks
var _ = version.MustParse
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
		// problems are "line: text" (lines of src), in order.
		problems []string
	}{{
		name: "unversioned with omitted fields",
		src: `const A featuregate.Feature = "A"
var m = map[featuregate.Feature]featuregate.FeatureSpec{
	A: {PreRelease: featuregate.Beta},
	"B": {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	featuregate.Feature("C"): {Default: false, PreRelease: featuregate.Deprecated},
	"D": {PreRelease: featuregate.PreAlpha},
	"E": {},
}`,
		want: []string{"A unversioned [/Beta/false]", "B unversioned [/GA/true/locked]", "C unversioned [/Deprecated/false]", "D unversioned [/PreAlpha/false]", "E unversioned [/GA/false]"},
	}, {
		name: "versioned, both version spellings, same version twice",
		src: `var m = map[featuregate.Feature]featuregate.VersionedSpecs{
	"A": {
		{Version: version.MustParse("1.26"), PreRelease: featuregate.Alpha},
		{Version: version.MajorMinor(1, 30), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("v1.30"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.29")},
	},
}`,
		want: []string{"A versioned [1.26/Alpha/false 1.30/Beta/true 1.30/Beta/true/min1.29]"},
	}, {
		name: "empty map of one kind beside a full map of the other",
		src: `var old = map[featuregate.Feature]featuregate.FeatureSpec{}
var m = map[featuregate.Feature]featuregate.VersionedSpecs{"A": {{Version: version.MustParse("1.26")}}}`,
		want: []string{"A versioned [1.26/GA/false]"},
	}, {
		name: "returned from a function, specs as []FeatureSpec",
		src: `func gates() map[featuregate.Feature][]featuregate.FeatureSpec {
	return map[featuregate.Feature][]featuregate.FeatureSpec{"A": {{Version: version.MustParse("1.24"), PreRelease: featuregate.Alpha}}}
}`,
		want: []string{"A versioned [1.24/Alpha/false]"},
	}, {
		name: "keys of another package and dependency lists",
		src: `const A = "A"
var m = map[featuregate.Feature]featuregate.VersionedSpecs{
	A: {{Version: version.MustParse("1.35"), PreRelease: featuregate.Alpha}},
	genericfeatures.WatchBookmarks: {{Version: version.MustParse("1.17"), Default: true, PreRelease: featuregate.GA}},
}
var deps = map[featuregate.Feature][]featuregate.Feature{
	A: {genericfeatures.WatchBookmarks, featuregate.Feature(genericfeatures.ServerSideApply)},
}`,
		want: []string{"A versioned [1.35/Alpha/false] deps=WatchBookmarks,ServerSideApply", "WatchBookmarks versioned [1.17/GA/true]"},
	}, {
		name: "a key of a package that did not load: its name stands in, said so",
		src: `import missing "example.com/missing"
var m = map[featuregate.Feature]featuregate.VersionedSpecs{
	missing.Gone: {{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta}},
}`,
		want: []string{"Gone versioned [//false] unresolved"},
	}, {
		name: "specs built in ways not evaluated are unresolved",
		src: `var on = true
func spec() featuregate.FeatureSpec { return featuregate.FeatureSpec{} }
var held = featuregate.FeatureSpec{Version: version.MustParse("1.30"), PreRelease: featuregate.Beta}
var m = map[featuregate.Feature]featuregate.VersionedSpecs{
	"Call": {spec()},
	"Flag": {{Version: version.MustParse("1.30"), Default: on}},
	"Held": {held},
	"Ver":  {{Version: version.MustParse("next")}},
}`,
		want: []string{"Call versioned [] unresolved", "Flag versioned [1.30/GA/false] unresolved", "Held versioned [1.30/Beta/false]", "Ver versioned [/GA/false] unresolved"},
	}, {
		name: "a key that is not a constant is a problem, not a gate",
		src: `var name featuregate.Feature = "X"
var m = map[featuregate.Feature]featuregate.FeatureSpec{name: {}}`,
		want:     nil,
		problems: []string{"2: an entry of feature map m could not be read: key name is not a constant string"},
	}, {
		name: "set by init, in each format, into maps of either kind",
		src: `const E featuregate.Feature = "E"
var m = map[featuregate.Feature]featuregate.VersionedSpecs{}
var old = map[featuregate.Feature]featuregate.FeatureSpec{}
var deps = map[featuregate.Feature][]featuregate.Feature{}
func init() {
	m[E] = featuregate.VersionedSpecs{{Version: version.MustParse("1.26"), PreRelease: featuregate.Alpha}}
	old["U"] = featuregate.FeatureSpec{Default: true, PreRelease: featuregate.Beta}
	deps[E] = []featuregate.Feature{"U"}
}`,
		want: []string{"E versioned [1.26/Alpha/false] deps=U", "U unversioned [/Beta/true]"},
	}, {
		name: "a variable with no literal at all, filled by assignments",
		src: `var m map[featuregate.Feature]featuregate.FeatureSpec
func init() {
	m = make(map[featuregate.Feature]featuregate.FeatureSpec)
	m["A"] = featuregate.FeatureSpec{PreRelease: featuregate.Alpha}
}`,
		want: []string{"A unversioned [/Alpha/false]"},
	}, {
		name: "an assignment overwrites the literal's entry of the same map, not another map's",
		src: `var m = map[featuregate.Feature]featuregate.FeatureSpec{"A": {PreRelease: featuregate.Alpha}}
var other = map[featuregate.Feature]featuregate.FeatureSpec{"B": {PreRelease: featuregate.Alpha}}
func init() {
	m["A"] = featuregate.FeatureSpec{Default: true, PreRelease: featuregate.Beta}
	m["B"] = featuregate.FeatureSpec{Default: true, PreRelease: featuregate.Beta}
}`,
		want: []string{"A unversioned [/Beta/true]", "B unversioned [/Alpha/false]"},
	}, {
		name: "an assigned value not read: the gate exists, unresolved",
		src: `func spec() featuregate.FeatureSpec { return featuregate.FeatureSpec{} }
func two() (featuregate.FeatureSpec, featuregate.FeatureSpec) { return spec(), spec() }
var m = map[featuregate.Feature]featuregate.FeatureSpec{}
func init() {
	s := featuregate.FeatureSpec{}
	m["Call"] = spec()
	m["Local"] = s
	m["P"], m["Q"] = two()
}`,
		want: []string{"Call unversioned [] unresolved", "Local unversioned [] unresolved", "P unversioned [] unresolved", "Q unversioned [] unresolved"},
	}, {
		name: "an assigned key not read is a problem at the key",
		src: `var m = map[featuregate.Feature]featuregate.FeatureSpec{}
var names []featuregate.Feature
func set(name featuregate.Feature) {
	m[name] = featuregate.FeatureSpec{}
	for _, n := range names {
		m[n] = featuregate.FeatureSpec{}
	}
}`,
		problems: []string{
			"4: an entry of feature map m could not be read: key name is not a constant string",
			"6: an entry of feature map m could not be read: key n is not a constant string",
		},
	}, {
		name: "built in a function: by assignments, in a called literal, by a loop over a read map",
		src: `var base = map[featuregate.Feature]featuregate.FeatureSpec{"A": {}}
var m = build()
func build() map[featuregate.Feature]featuregate.FeatureSpec {
	out := map[featuregate.Feature]featuregate.FeatureSpec{}
	for k, v := range base {
		out[k] = v
	}
	out["B"] = featuregate.FeatureSpec{PreRelease: featuregate.Beta}
	return out
}
var n = func() map[featuregate.Feature]featuregate.VersionedSpecs {
	out := map[featuregate.Feature]featuregate.VersionedSpecs{}
	out["C"] = featuregate.VersionedSpecs{{Version: version.MustParse("1.30")}}
	return out
}()`,
		want: []string{"A unversioned [/GA/false]", "B unversioned [/Beta/false]", "C versioned [1.30/GA/false]"},
	}, {
		name: "an adapter re-keying its caller's map declares nothing and is no problem",
		src: `func adapt(in map[string]featuregate.FeatureSpec) map[featuregate.Feature]featuregate.FeatureSpec {
	out := make(map[featuregate.Feature]featuregate.FeatureSpec)
	for name, spec := range in {
		out[featuregate.Feature(name)] = spec
	}
	return out
}`,
	}, {
		name: "a map built by a call of a package that did not load is unresolved at its place",
		src: `import missing "example.com/missing"
var a map[featuregate.Feature]featuregate.FeatureSpec = missing.Load()`,
		problems: []string{
			"2: feature map a could not be read: the map is built by the call missing.Load(); plegvet reads literal entries and index assignments only",
		},
	}, {
		name: "a map built by a call plegvet does not follow, or copied from one, is unresolved at its place",
		src: `import "maps"
var load func() map[featuregate.Feature]featuregate.FeatureSpec
var b = maps.Clone(load())
var c = map[featuregate.Feature]featuregate.FeatureSpec{"C": {}}
func init() { maps.Copy(c, load()) }
func d() map[featuregate.Feature]featuregate.FeatureSpec { return load() }
var e = maps.Clone(c)`,
		want: []string{"C unversioned [/GA/false]"},
		problems: []string{
			"3: feature map b could not be read: the map is built by the call load()",
			"5: feature map c could not be read: maps.Copy adds a map built by the call load()",
			"6: feature map returned by d could not be read: the map is built by the call load()",
		},
	}, {
		name: "an empty spec list or one built by a call: no specs, unresolved",
		src: `func history() featuregate.VersionedSpecs { return nil }
var base featuregate.VersionedSpecs
var m = map[featuregate.Feature]featuregate.VersionedSpecs{
	"Empty":  {},
	"Called": history(),
	"Append": append(base, featuregate.FeatureSpec{}),
}`,
		want: []string{"Append versioned [] unresolved", "Called versioned [] unresolved", "Empty versioned [] unresolved"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := header + tc.src
			if strings.HasPrefix(tc.src, "import") {
				i := strings.Index(tc.src, "\n")
				src = strings.Replace(header, "import (", "import (\n\t"+strings.TrimPrefix(tc.src[:i], "import "), 1) + tc.src[i:]
			}
			res, fset := extract(t, src)
			var got []string
			for _, g := range res.Gates {
				got = append(got, summary(g))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("gates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			// Lines of tc.src: what precedes its last line in src.
			last := tc.src[strings.LastIndex(tc.src, "\n")+1:]
			offset := strings.Count(src[:strings.LastIndex(src, last)], "\n") - strings.Count(tc.src, "\n")
			var problems []string
			for _, p := range res.Problems {
				problems = append(problems, fmt.Sprintf("%d: %s", fset.Position(p.Pos).Line-offset, p.Msg))
			}
			if len(problems) != len(tc.problems) {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(tc.problems, "\n"))
			}
			for i, p := range problems {
				if !strings.HasPrefix(p, tc.problems[i]) {
					t.Errorf("problem %d = %q, want %q", i, p, tc.problems[i])
				}
			}
		})
	}
}

// An assigned entry says so and where; a map that could not be read says
// why at its place, and makes the result incomplete.
func TestAssignedAndUnreadable(t *testing.T) {
	res, fset := extract(t, header+`var m = map[featuregate.Feature]featuregate.FeatureSpec{"A": {}}
var load func() map[featuregate.Feature]featuregate.VersionedSpecs
var other = load()
func init() {
	m["B"] = featuregate.FeatureSpec{}
}`)
	line := func(p token.Pos) int { return fset.Position(p).Line - strings.Count(header, "\n") }
	b := res.Gate("B")
	if b == nil || !b.Assigned || b.MapVar == nil || b.MapVar.Name() != "m" || b.Map != "m" || line(b.EntryPos) != 5 {
		t.Fatalf("B = %+v, want assigned into m at line 5", b)
	}
	if a := res.Gate("A"); a == nil || a.Assigned || a.MapVar != b.MapVar {
		t.Errorf("A = %+v, want a literal entry of m", a)
	}
	var maps []string
	for _, m := range res.Maps {
		maps = append(maps, fmt.Sprintf("%s %s %d entries line %d %q", m.Name, m.Kind, m.Entries, line(m.Pos), m.Unresolved))
	}
	want := []string{
		`m unversioned 2 entries line 1 ""`,
		`other versioned 0 entries line 3 "the map is built by the call load()"`,
	}
	if strings.Join(maps, "\n") != strings.Join(want, "\n") {
		t.Errorf("maps:\n%s\nwant:\n%s", strings.Join(maps, "\n"), strings.Join(want, "\n"))
	}
	if res.Complete() {
		t.Error("Complete() = true with a map built by a call")
	}
	if len(res.Problems) != 1 || line(res.Problems[0].Pos) != 3 || !res.Problems[0].End.IsValid() {
		t.Errorf("problems = %+v, want one at line 3", res.Problems)
	}
}

func TestGateAt(t *testing.T) {
	g := &featuregates.Gate{Name: "G", Specs: []featuregates.Spec{
		{Version: "1.26", PreRelease: featuregates.Alpha},
		{Version: "1.30", PreRelease: featuregates.Beta},
		{Version: "1.30", PreRelease: featuregates.Beta, Default: true, MinCompatibilityVersion: "1.30"},
		{Version: "1.33", PreRelease: featuregates.GA, Default: true, LockToDefault: true},
	}}
	tests := []struct {
		at   string
		want string // stage/default, or "none"
	}{
		{"1.25", "none"}, {"v1.26.0", "Alpha/false"}, {"1.29", "Alpha/false"},
		{"1.30", "Beta/false"}, // min compatibility 1.29 < 1.30: the default-on spec waits
		{"v1.31.4", "Beta/true"}, {"1.33", "GA/true"}, {"1.40", "GA/true"}, {"garbage", "none"},
	}
	for _, tc := range tests {
		s, ok := g.At(tc.at)
		got := "none"
		if ok {
			got = fmt.Sprintf("%s/%t", s.PreRelease, s.Default)
		}
		if got != tc.want {
			t.Errorf("At(%q) = %s, want %s", tc.at, got, tc.want)
		}
	}
	unversioned := &featuregates.Gate{Specs: []featuregates.Spec{{PreRelease: featuregates.Beta, Default: true}}}
	if s, ok := unversioned.At("1.20"); !ok || !s.Default {
		t.Errorf("unversioned At = %+v, %t; want the one spec", s, ok)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1.26": "1.26", "v1.26": "1.26", "1.26.3": "1.26.3", "v1.36.0-beta.0": "1.36.0", " 1.0 ": "1.0",
		"1": "", "1.x": "", "01.2": "", "1.2.3.4": "", "": "", "-1.2": "", "1..2": "",
	} {
		v, ok := featuregates.ParseVersion(in)
		got := ""
		if ok {
			got = v.String()
		}
		if got != want {
			t.Errorf("ParseVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzExtract feeds arbitrary Go source to the extractor, as a fork's
// pkg/features may be anything: it must never panic, and what it returns
// must be well formed.
func FuzzExtract(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("..", "testdata", "src", "*", "*", "*.go"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "src", "k8s.io", "*", "pkg", "features", "*.go"))
	for _, name := range append(seeds, more...) {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Add(header + `var m = map[featuregate.Feature]featuregate.VersionedSpecs{"A": {{Version: version.MajorMinor(1<<40, -1)}}}`)
	f.Add(header + `var m = map[featuregate.Feature][]featuregate.Feature{"A": {"A"}, "B": nil}`)
	fset := token.NewFileSet()
	imp := fixturetypes.NewImporter(fset, filepath.Join("..", "testdata", "src"))
	imp.StubUnknown = true
	f.Fuzz(func(t *testing.T, src string) {
		start := time.Now()
		defer func() {
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v on %q", d, src)
			}
		}()
		file, info, _, _ := imp.Check("p", src) // partial syntax is extracted too
		if file == nil {
			return
		}
		res := featuregates.Extract([]*ast.File{file}, info)
		for _, p := range res.Problems {
			if !p.Pos.IsValid() || p.Msg == "" {
				t.Errorf("problem %+v has no position or message", p)
			}
		}
		for i, g := range res.Gates {
			if g.Name == "" {
				t.Errorf("gate with no name at %v", fset.Position(g.EntryPos))
			}
			if len(g.Specs) == 0 && g.Unresolved == "" {
				t.Errorf("gate %s has no specs and does not say why", g.Name)
			}
			if i > 0 && res.Gates[i-1].Name >= g.Name {
				t.Errorf("gates not sorted and unique: %q then %q", res.Gates[i-1].Name, g.Name)
			}
			g.At("1.30")
		}
	})
}

// FuzzParseVersion: versions written in specs and given by users parse or
// do not, never panic, and print back to what parses the same.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"1.26", "v1.26.3", "1.0", "1.36.0-beta.0", "01.2", "1..2", "18446744073709551616.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := featuregates.ParseVersion(s)
		if !ok {
			return
		}
		w, ok := featuregates.ParseVersion(v.String())
		if !ok || w.String() != v.String() || w.Less(v) || v.Less(w) {
			t.Errorf("%q parsed to %s, which reparses to %s", s, v, w)
		}
	})
}

// Kubernetes' feature-list tool lists component-base's versioned maps
// written as a variable's value or a function's result; client-go's
// copy of the API declares gates it does not list.
func TestListed(t *testing.T) {
	res, _ := extract(t, `package p

import (
	"k8s.io/apimachinery/pkg/util/version"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/component-base/featuregate"
)

var kube = map[featuregate.Feature]featuregate.VersionedSpecs{
	"KubeGate": {{Version: version.MustParse("1.30"), PreRelease: featuregate.Alpha}},
}

var old = map[featuregate.Feature]featuregate.FeatureSpec{
	"OldGate": {PreRelease: featuregate.Alpha},
}

var client = map[clientfeatures.Feature]clientfeatures.VersionedSpecs{
	"ClientGate": {{Version: version.MustParse("1.31"), PreRelease: clientfeatures.Beta, Default: true}},
}
`)
	want := map[string]string{"KubeGate": featuregates.APIPath, "OldGate": featuregates.APIPath, "ClientGate": featuregates.ClientGoPath}
	listed := map[string]bool{"KubeGate": true}
	if len(res.Gates) != len(want) {
		t.Fatalf("gates %d, want %d", len(res.Gates), len(want))
	}
	for _, g := range res.Gates {
		if g.API != want[g.Name] || g.InList() != listed[g.Name] {
			t.Errorf("%s: API %q, Listed %t; want %q, %t", g.Name, g.API, g.InList(), want[g.Name], listed[g.Name])
		}
	}
	if s := summary(res.Gate("ClientGate")); s != "ClientGate versioned [1.31/Beta/true]" {
		t.Errorf("ClientGate = %s", s)
	}
}
