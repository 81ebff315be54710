package featuregate_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/internal/splittest"
)

func testdata(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The checks' expectations; the gates' facts in the same fixtures are
// gatefacts' (its TestFacts). conflicting-registration reports in the
// files of an imported package too: crossPackage pairs those findings
// with the expectations there.
func TestAnalyzer(t *testing.T) {
	cross := newCrossPackage(splittest.Diagnostics(t), unannotated)
	analysistest.Run(cross, testdata(t), featuregate.Analyzer,
		"k8s.io/apiserver/pkg/features",
		"k8s.io/kubernetes/pkg/features",
		"gateshapes/...",
		"gaterules/...",
		"registrations/...",
	)
	cross.done()
}

// The obvious fixes: Default false for an Alpha gate, a minor for a patch.
func TestSuggestedFixes(t *testing.T) {
	analysistest.RunWithSuggestedFixes(splittest.Diagnostics(t), testdata(t), featuregate.Analyzer, "gatefixes")
}

// Two analyzers built with different configurations run at once, in one
// process, on one fixture, and each reports by its own configuration.
func TestConfigurationsCoexist(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  featuregate.Config
		want []string // alpha-default-on findings
	}{
		{"upstream", featuregate.DefaultConfig(), []string{"EagerAlpha", "OldEager"}},
		{"exempt none", featuregate.Config{AlphaDefaultExempt: []string{}}, []string{"EagerAlpha", "OldEager", "WindowsHostNetwork"}},
		{"exempt EagerAlpha", featuregate.Config{AlphaDefaultExempt: []string{"EagerAlpha"}}, []string{"OldEager", "WindowsHostNetwork"}},
		{"exempt all", featuregate.Config{AlphaDefaultExempt: []string{"EagerAlpha", "OldEager", "WindowsHostNetwork"}}, nil},
	} {
		a := featuregate.New(tc.cfg)
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for range 3 {
				var got []string
				results := analysistest.Run(ignoreExpectations{}, testdata(t), a, "gaterules/alpha")
				if len(results) != 1 || results[0].Err != nil {
					t.Fatalf("analysing gaterules/alpha: %d results", len(results))
				}
				for _, r := range results {
					for _, d := range r.Diagnostics {
						if d.Category == string(featuregate.AlphaDefaultOn) {
							name, _, _ := strings.Cut(strings.TrimPrefix(d.Message, "feature gate "), " ")
							got = append(got, name)
						}
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("alpha-default-on for %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// Flags set the configuration of their own analyzer only.
func TestFlagsAreTheAnalyzersOwn(t *testing.T) {
	a, b := featuregate.New(featuregate.DefaultConfig()), featuregate.New(featuregate.DefaultConfig())
	if err := a.Flags.Set("alpha-default-exempt", "A, B"); err != nil {
		t.Fatal(err)
	}
	if err := a.Flags.Set("rules", "1.33"); err != nil {
		t.Fatal(err)
	}
	analyzers := map[string]*analysis.Analyzer{"a": a, "b": b, "Analyzer": featuregate.Analyzer}
	for _, c := range []struct{ analyzer, flag, want string }{
		{"a", "alpha-default-exempt", "A,B"}, {"a", "rules", "1.33"},
		{"b", "alpha-default-exempt", "WindowsHostNetwork"}, {"b", "rules", "auto"},
		{"Analyzer", "alpha-default-exempt", "WindowsHostNetwork"}, {"Analyzer", "rules", "auto"},
	} {
		if got := analyzers[c.analyzer].Flags.Lookup(c.flag).Value.String(); got != c.want {
			t.Errorf("%s -%s = %q, want %q", c.analyzer, c.flag, got, c.want)
		}
	}
	for _, bad := range []struct{ flag, value, want string }{
		{"rules", "latest", `"latest" is neither "auto" nor a Kubernetes minor`},
		{"alpha-default-exempt", "A,B C", `"B C" is not a gate name`},
	} {
		if err := b.Flags.Set(bad.flag, bad.value); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("-%s=%s: %v, want %s", bad.flag, bad.value, err, bad.want)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  featuregate.Config
		want string
	}{
		{featuregate.DefaultConfig(), ""},
		{featuregate.Config{}, ""},
		{featuregate.Config{Rules: "1.35"}, ""},
		{featuregate.Config{Rules: "latest"}, `rules: "latest" is neither "auto" nor a Kubernetes minor such as "1.33"`},
		{featuregate.Config{AlphaDefaultExempt: []string{"A,B"}}, `alphaDefaultExempt: "A,B" is not a gate name`},
	} {
		err := c.cfg.Validate()
		if got := errText(err); got != c.want {
			t.Errorf("%+v: %q, want %q", c.cfg, got, c.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Every category the analyzer reports is documented in doc.go, where
// SARIF rules and -help come from.
func TestChecksDocumented(t *testing.T) {
	checks := map[string]string{}
	for _, c := range featuregate.Checks() {
		checks[string(c.Check)] = c.Text
	}
	for _, name := range []string{"gate-unreadable", "dependency-unknown", "alpha-default-on"} {
		if checks[name] == "" {
			t.Errorf("check %s is not documented", name)
		}
	}
	if !strings.Contains(checks["gate-unreadable"], "maps.Copy") {
		t.Errorf("gate-unreadable doc = %q", checks["gate-unreadable"])
	}
	if !strings.HasSuffix(checks["alpha-default-on"], "-alpha-default-exempt).") {
		t.Errorf("alpha-default-on doc is cut short: %q", checks["alpha-default-on"])
	}
}

// ignoreExpectations is for runs that compare configurations: the
// fixture's expectations are the default configuration's.
type ignoreExpectations struct{}

func (ignoreExpectations) Errorf(string, ...any) {}
