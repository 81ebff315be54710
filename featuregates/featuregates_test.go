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
	"github.com/plegvet/plegvet/internal/fixturetypes"
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
	if len(g.Dependencies) > 0 {
		var deps []string
		for _, d := range g.Dependencies {
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
		problems  int
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
		problems: 1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := header + tc.src
			if strings.HasPrefix(tc.src, "import") {
				i := strings.Index(tc.src, "\n")
				src = strings.Replace(header, "import (", "import (\n\t"+strings.TrimPrefix(tc.src[:i], "import "), 1) + tc.src[i:]
			}
			res, _ := extract(t, src)
			var got []string
			for _, g := range res.Gates {
				got = append(got, summary(g))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("gates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if len(res.Problems) != tc.problems {
				t.Errorf("problems = %v, want %d", res.Problems, tc.problems)
			}
		})
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
		for i, g := range res.Gates {
			if g.Name == "" {
				t.Errorf("gate with no name at %v", fset.Position(g.Entry))
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
