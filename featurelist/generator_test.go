package featurelist

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/srcpos"
)

// A look-alike of the feature-list tool, written for these tests: the
// shapes ReadGenerator reads, in the v1.33-v1.36 form (with the
// exemption) unless a test edits it.
const toolLookAlike = `package cmd

import "k8s.io/apimachinery/pkg/util/version"

var (
	listPath = "unused"
	thresholdVersion = version.MajorMinor(1, 31)
)

const (
	versionedFeatureListFile = "test/lists/" + "gates.yaml"
)

const (
	generatedFileWarning = ` + "`# Written by a tool.\n# Run it again.\n\n`" + `
)

func verifyFeatureRemoval(specs []string, current *version.Version) error {
	v := version.MustParse("1.0")
	if !v.GreaterThan(thresholdVersion) {
		return nil
	}
	_ = v.AddMinor(3)
	return nil
}
`

func TestReadGenerator(t *testing.T) {
	g, err := ReadGenerator("tool.go", []byte(toolLookAlike))
	want := Generator{Header: "# Written by a tool.\n# Run it again.\n\n", ListFile: "test/lists/gates.yaml", RemovalMinors: 3, ExemptThrough: "1.31"}
	if err != nil || g != want {
		t.Fatalf("ReadGenerator = %+v, %v; want %+v", g, err, want)
	}
	// v1.37's form: the threshold gone from the rule (a declaration left
	// behind does not count), the wait read as written.
	noThreshold := strings.Replace(toolLookAlike, "!v.GreaterThan(thresholdVersion)", "false", 1)
	noThreshold = strings.Replace(noThreshold, "AddMinor(3)", "AddMinor(4)", 1)
	g, err = ReadGenerator("tool.go", []byte(noThreshold))
	if err != nil || g.ExemptThrough != "" || g.RemovalMinors != 4 {
		t.Errorf("without the threshold: %+v, %v", g, err)
	}
	for edit, wantErr := range map[[2]string]string{
		{"generatedFileWarning =", "otherWarning ="}:              "tool.go: want a string constant generatedFileWarning",
		{"versionedFeatureListFile =", "otherFile ="}:             "tool.go: want a string constant versionedFeatureListFile",
		{"func verifyFeatureRemoval", "func otherCheck"}:          "tool.go: want a func verifyFeatureRemoval",
		{"AddMinor(3)", "AddMinor(n)"}:                            "tool.go:21: want verifyFeatureRemoval to call AddMinor(N)",
		{"version.MajorMinor(1, 31)", "version.MajorMinor(1, x)"}: "tool.go: want thresholdVersion to be",
		{"package cmd", "package"}:                                "tool.go: not Go: ",
	} {
		_, err := ReadGenerator("tool.go", []byte(strings.Replace(toolLookAlike, edit[0], edit[1], 1)))
		if err == nil || !strings.HasPrefix(err.Error(), wantErr) || strings.Contains(err.Error(), "\n") {
			t.Errorf("with %q -> %q: err = %v, want %q...", edit[0], edit[1], err, wantErr)
		}
	}
}

func TestReadBinaryVersion(t *testing.T) {
	for src, want := range map[string]string{
		"package version\nconst (\n\tDefaultKubeBinaryVersion = \"1.37\"\n)\n": "1.37",
		"package version\nvar DefaultKubeBinaryVersion = \"1.3\" + \"3\"\n":    "1.33",
		"package version\nconst DefaultKubeBinaryVersion = \"one\"\n":          "",
		"package version\nconst Other = \"1.37\"\n":                            "",
	} {
		got, err := ReadBinaryVersion("base.go", []byte(src))
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ReadBinaryVersion(%q) = %q, %v; want %q", src, got, err, want)
		}
	}
}

func TestRemovals(t *testing.T) {
	spec := func(stage, version string, locked bool) featuregates.Spec {
		return featuregates.Spec{PreRelease: featuregates.PreRelease(stage), Version: version, LockToDefault: locked, Default: stage != "Alpha"}
	}
	committed := []featuregates.Gate{
		{Name: "Kept", Entry: srcpos.Pos{Line: 1}, Specs: []featuregates.Spec{spec("Beta", "1.30", false)}},
		{Name: "AlphaGone", Entry: srcpos.Pos{Line: 2}, Specs: []featuregates.Spec{spec("Alpha", "1.36", false)}},
		{Name: "BetaGone", Entry: srcpos.Pos{Line: 3}, Specs: []featuregates.Spec{spec("Alpha", "1.30", false), spec("Beta", "1.34", false)}},
		{Name: "GAUnlocked", Entry: srcpos.Pos{Line: 4}, Specs: []featuregates.Spec{spec("GA", "1.33", false)}},
		{Name: "GALockedLongAgo", Entry: srcpos.Pos{Line: 5}, Specs: []featuregates.Spec{spec("GA", "1.34", true)}},
		{Name: "GALockedLately", Entry: srcpos.Pos{Line: 6}, Specs: []featuregates.Spec{spec("GA", "1.35", true)}},
		{Name: "DeprecatedOld", Entry: srcpos.Pos{Line: 7}, Specs: []featuregates.Spec{spec("Deprecated", "1.31", true)}},
		{Name: "NoSpecs", Entry: srcpos.Pos{Line: 8}},
		{Name: "LockedThenAlpha", Entry: srcpos.Pos{Line: 9}, Specs: []featuregates.Spec{spec("GA", "1.35", true), spec("Alpha", "1.36", false)}},
	}
	declared := func(name string) bool { return name == "Kept" }
	why := func(rs []Removal) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Why)
		}
		return out
	}
	v137 := Generator{RemovalMinors: 3, Current: "1.37"}
	want137 := []string{
		"feature BetaGone cannot be removed while in beta",
		"feature GAUnlocked cannot be removed because it is in GA or Deprecated state and is not locked to default",
		"feature GALockedLately cannot be removed until version 1.38 (required for emulation support)",
		"feature NoSpecs has no version specs",
	}
	if got := why(v137.Removals(committed, declared)); !slices.Equal(got, want137) {
		t.Errorf("at 1.37:\n got %q\nwant %q", got, want137)
	}
	// At 1.33 with the exemption through 1.31: DeprecatedOld may go, the
	// locked-at-1.34 and -1.35 gates may not yet.
	v133 := Generator{RemovalMinors: 3, ExemptThrough: "1.31", Current: "1.33"}
	got := why(v133.Removals(committed, declared))
	if !slices.Contains(got, "feature GALockedLongAgo cannot be removed until version 1.37 (required for emulation support)") ||
		slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "DeprecatedOld") }) {
		t.Errorf("at 1.33 with the exemption: %q", got)
	}
	// Without the exemption DeprecatedOld waits its three minors too (1.34 <= 1.33 fails).
	v133.ExemptThrough = ""
	if got := why(v133.Removals(committed, declared)); !slices.Contains(got, "feature DeprecatedOld cannot be removed until version 1.34 (required for emulation support)") {
		t.Errorf("at 1.33 without the exemption: %q", got)
	}
	// A minor near the 32-bit limit: the wait is counted, not lost.
	far := []featuregates.Gate{{Name: "Far", Entry: srcpos.Pos{Line: 1}, Specs: []featuregates.Spec{spec("GA", "1.4294967294", true)}}}
	wantFar := []string{"feature Far cannot be removed until version 1.4294967297 (required for emulation support)"}
	if got := why(v137.Removals(far, declared)); !slices.Equal(got, wantFar) {
		t.Errorf("a far minor:\n got %q\nwant %q", got, wantFar)
	}
	if rs := v137.Removals(committed, declared); rs[0].Gate != "BetaGone" || rs[0].Line != 3 {
		t.Errorf("first removal %+v, want BetaGone at line 3", rs[0])
	}
}

// WriteYAML's bytes read back as the gates written, comments and all.
func TestWriteYAMLRoundTrip(t *testing.T) {
	gates := []featuregates.Gate{
		{Name: "Alpha1", Specs: []featuregates.Spec{{PreRelease: "Alpha", Version: "1.36"}, {PreRelease: "Beta", Version: "1.37", Default: true, MinCompatibilityVersion: "1.36"}}},
		{Name: "Empty"},
	}
	for _, annotate := range []Annotate{nil, func(g, s int) string { return "x.go:1:1" }} {
		var b bytes.Buffer
		if err := WriteYAML(&b, "# head\n\n", gates, annotate); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(b.String(), "# head\n\n- name: Alpha1\n") != (annotate == nil) {
			t.Errorf("annotate %v:\n%s", annotate != nil, b.String())
		}
		back, err := Parse("list", b.Bytes())
		if err != nil || len(back) != 2 || back[0].Specs[1].MinCompatibilityVersion != "1.36" || len(back[1].Specs) != 0 {
			t.Errorf("read back %+v, %v from\n%s", back, err, b.String())
		}
	}
}

// FuzzReadGenerator: any source gives a Generator or one error line
// naming the file, never a panic.
func FuzzReadGenerator(f *testing.F) {
	f.Add([]byte(toolLookAlike))
	f.Add([]byte("package cmd\nconst generatedFileWarning = `x` + 1\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		g, err := ReadGenerator("tool.go", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tool.go") || strings.Contains(err.Error(), "\n") && !strings.Contains(err.Error(), "not Go") {
				t.Errorf("error %q", err)
			}
			return
		}
		if g.RemovalMinors <= 0 || g.ListFile == "" && !strings.Contains(string(src), "versionedFeatureListFile") {
			t.Errorf("ReadGenerator = %+v without an error", g)
		}
		_, _ = ReadBinaryVersion("base.go", src)
	})
}
