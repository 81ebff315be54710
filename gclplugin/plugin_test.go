package gclplugin_test

import (
	"encoding/json"
	"flag"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/gclplugin"
	"github.com/plegvet/plegvet/internal/analysis/suite"
)

// yamlish turns JSON into what golangci-lint hands a plugin: the YAML
// decoded into maps, slices and scalars (viper lowercases the keys).
func yamlish(t *testing.T, js string) any {
	t.Helper()
	if js == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("bad test input %s: %v", js, err)
	}
	return v
}

// flags reads the flags of the analyzers BuildAnalyzers returned, as
// -ANALYZER.FLAG=VALUE.
func flags(as []*analysis.Analyzer) map[string]string {
	m := map[string]string{}
	for _, a := range as {
		a.Flags.VisitAll(func(f *flag.Flag) { m[a.Name+"."+f.Name] = f.Value.String() })
	}
	return m
}

func names(as []*analysis.Analyzer) []string {
	var ns []string
	for _, a := range as {
		ns = append(ns, a.Name)
	}
	return ns
}

func TestRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin("plegvet")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(*gclplugin.Plugin); !ok {
		t.Fatalf("registered constructor built a %T", p)
	}
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("GetLoadMode() = %q, want %q", got, register.LoadModeTypesInfo)
	}
}

func TestSettings(t *testing.T) {
	defaults := map[string]string{"featuregate.rules": "auto", "featuregate.alpha-default-exempt": "WindowsHostNetwork", "pleg.note": "false"}
	// with is the defaults with one flag changed, less the analyzers not named.
	with := func(k, v string, only ...string) map[string]string {
		m := map[string]string{}
		for dk, dv := range defaults {
			a, _, _ := strings.Cut(dk, ".")
			if len(only) == 0 || slices.Contains(only, a) {
				m[dk] = dv
			}
		}
		if k != "" {
			m[k] = v
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		settings  string // JSON; "" is no settings at all (nil)
		wantFlags map[string]string
		wantNames []string
		wantErr   string // substring of the error; "" is no error
	}{
		{name: "nil", settings: "", wantFlags: defaults, wantNames: []string{"featuregate", "pleg"}},
		{name: "empty", settings: `{}`, wantFlags: defaults, wantNames: []string{"featuregate", "pleg"}},
		{name: "empty sections", settings: `{"featuregate": {}, "pleg": {}, "disable": []}`, wantFlags: defaults, wantNames: []string{"featuregate", "pleg"}},
		{name: "rules", settings: `{"featuregate": {"rules": "1.33"}}`, wantFlags: with("featuregate.rules", "1.33"), wantNames: []string{"featuregate", "pleg"}},
		{name: "rules auto", settings: `{"featuregate": {"rules": "auto"}}`, wantFlags: defaults, wantNames: []string{"featuregate", "pleg"}},
		{name: "exempt list", settings: `{"featuregate": {"alphaDefaultExempt": ["A", "B"]}}`, wantFlags: with("featuregate.alpha-default-exempt", "A,B"), wantNames: []string{"featuregate", "pleg"}},
		{name: "exempt none", settings: `{"featuregate": {"alphaDefaultExempt": []}}`, wantFlags: with("featuregate.alpha-default-exempt", ""), wantNames: []string{"featuregate", "pleg"}},
		{name: "lowercased key, as viper passes it", settings: `{"featuregate": {"alphadefaultexempt": ["A"]}}`, wantFlags: with("featuregate.alpha-default-exempt", "A"), wantNames: []string{"featuregate", "pleg"}},
		{name: "note", settings: `{"pleg": {"note": true}}`, wantFlags: with("pleg.note", "true"), wantNames: []string{"featuregate", "pleg"}},
		{name: "disable pleg", settings: `{"disable": ["pleg"]}`, wantFlags: with("", "", "featuregate"), wantNames: []string{"featuregate"}},
		{name: "disable featuregate", settings: `{"disable": ["featuregate"]}`, wantFlags: with("", "", "pleg"), wantNames: []string{"pleg"}},
		{
			name:      "everything",
			settings:  `{"featuregate": {"rules": "1.35", "alphaDefaultExempt": ["WindowsHostNetwork", "X"]}, "pleg": {"note": true}, "disable": ["featuregate"]}`,
			wantFlags: map[string]string{"pleg.note": "true"},
			wantNames: []string{"pleg"},
		},

		{name: "unknown top-level key", settings: `{"notes": true}`, wantErr: `unknown key "notes"`},
		{name: "unknown nested key", settings: `{"pleg": {"nte": true}}`, wantErr: `unknown key "pleg.nte"`},
		{name: "flag name instead of key", settings: `{"featuregate": {"alpha-default-exempt": ["A"]}}`, wantErr: `unknown key "featuregate.alpha-default-exempt"`},
		{name: "note not a bool", settings: `{"pleg": {"note": "yes"}}`, wantErr: "pleg.note: got a string, want true or false"},
		{name: "rules as a YAML number", settings: `{"featuregate": {"rules": 1.3}}`, wantErr: `featuregate.rules: got a number, want a string (quote it: YAML reads an unquoted 1.30 as the number 1.3)`},
		{name: "exempt not a list", settings: `{"featuregate": {"alphaDefaultExempt": "A,B"}}`, wantErr: "featuregate.alphaDefaultExempt: got a string, want a list of strings"},
		{name: "section not a map", settings: `{"pleg": true}`, wantErr: "pleg: got a bool, want a map"},
		{name: "disable not a list", settings: `{"disable": "pleg"}`, wantErr: "disable: got a string, want a list of strings"},
		{name: "settings not a map", settings: `["pleg"]`, wantErr: "settings: got an array, want a map"},
		{name: "bad rules", settings: `{"featuregate": {"rules": "latest"}}`, wantErr: `featuregate.rules: "latest" is neither "auto" nor a Kubernetes minor`},
		{name: "exempt with a comma", settings: `{"featuregate": {"alphaDefaultExempt": ["A,B"]}}`, wantErr: `featuregate.alphaDefaultExempt: "A,B" is not a gate name`},
		{name: "disable unknown analyzer", settings: `{"disable": ["relist"]}`, wantErr: `disable: unknown analyzer "relist" (known: featuregate, pleg)`},
		{name: "disable everything", settings: `{"disable": ["pleg", "featuregate"]}`, wantErr: "disable: every analyzer is disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := gclplugin.New(yamlish(t, tc.settings))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("New(%s) succeeded, want an error with %q", tc.settings, tc.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "plegvet settings: "+tc.wantErr) {
					t.Fatalf("New(%s) error:\n  %v\nwant it to start with\n  plegvet settings: %s", tc.settings, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%s): %v", tc.settings, err)
			}
			as, err := p.BuildAnalyzers()
			if err != nil {
				t.Fatalf("BuildAnalyzers: %v", err)
			}
			if got := names(as); !reflect.DeepEqual(got, tc.wantNames) {
				t.Errorf("BuildAnalyzers() = %v, want %v", got, tc.wantNames)
			}
			if got := flags(as); !reflect.DeepEqual(got, tc.wantFlags) {
				t.Errorf("flags of the built analyzers = %v, want %v", got, tc.wantFlags)
			}
			// The package's analyzers, which go vet runs, keep their defaults.
			if got := flags([]*analysis.Analyzer{featuregate.Analyzer, pleg.Analyzer}); !reflect.DeepEqual(got, defaults) {
				t.Errorf("the packages' analyzers' flags = %v, want the defaults", got)
			}
		})
	}
}

// TestDecodeIsStrict checks the register package's decoder itself, which
// the plugin relies on to reject unknown keys.
func TestDecodeIsStrict(t *testing.T) {
	type small struct {
		Known bool `json:"known"`
	}
	if _, err := register.DecodeSettings[small](map[string]any{"known": true}); err != nil {
		t.Fatalf("known key: %v", err)
	}
	_, err := register.DecodeSettings[small](map[string]any{"known": true, "other": 1})
	if err == nil || !strings.Contains(err.Error(), `unknown field "other"`) {
		t.Fatalf("unknown key: got %v, want an unknown field error", err)
	}
}

// Each plugin instance builds analyzers of its own, configured by its
// settings: two instances with different settings, and the packages'
// analyzers that go vet runs, do not share a flag. Their analyzers are
// the suite's, in its order, and valid together.
func TestBuildAnalyzersAreTheInstancesOwn(t *testing.T) {
	build := func(settings map[string]any) []*analysis.Analyzer {
		t.Helper()
		p, err := gclplugin.New(settings)
		if err != nil {
			t.Fatal(err)
		}
		as, err := p.BuildAnalyzers()
		if err != nil {
			t.Fatal(err)
		}
		if err := analysis.Validate(as); err != nil {
			t.Fatal(err)
		}
		return as
	}
	quiet := build(map[string]any{})
	noisy := build(map[string]any{"pleg": map[string]any{"note": true}, "featuregate": map[string]any{"rules": "1.33"}})
	var want []string
	for _, a := range suite.Analyzers() {
		want = append(want, a.Name)
	}
	if !reflect.DeepEqual(names(quiet), want) || !reflect.DeepEqual(names(noisy), want) {
		t.Fatalf("BuildAnalyzers() = %v and %v, want %v", names(quiet), names(noisy), want)
	}
	for i := range quiet {
		if quiet[i] == noisy[i] || quiet[i] == featuregate.Analyzer || quiet[i] == pleg.Analyzer {
			t.Errorf("%s is shared", quiet[i].Name)
		}
	}
	if q, n := flags(quiet), flags(noisy); q["pleg.note"] != "false" || n["pleg.note"] != "true" || q["featuregate.rules"] != "auto" || n["featuregate.rules"] != "1.33" {
		t.Errorf("flags %v and %v", q, n)
	}
	// pleg needs the gates' specs but not featuregate's checks.
	for _, r := range noisy[1].Requires {
		if r.Name == "featuregate" {
			t.Errorf("pleg requires featuregate")
		}
	}
}

// knownKeys in the error come from the suite's settings.
func TestUnknownKeyNamesTheSuitesSettings(t *testing.T) {
	_, err := gclplugin.New(map[string]any{"nope": 1})
	var keys []string
	for _, s := range suite.Settings() {
		keys = append(keys, s.Analyzer+"."+s.Key)
	}
	want := "(known: " + strings.Join(append(keys, "disable"), ", ") + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to end %s", err, want)
	}
}
