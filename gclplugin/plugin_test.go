package gclplugin_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/gclplugin"
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

// flags reads the analyzers' flags as BuildAnalyzers left them.
func flags() map[string]string {
	return map[string]string{
		"rules":  featuregate.Analyzer.Flags.Lookup("rules").Value.String(),
		"exempt": featuregate.Analyzer.Flags.Lookup("alpha-default-exempt").Value.String(),
		"note":   pleg.Analyzer.Flags.Lookup("note").Value.String(),
	}
}

func names(as []*analysis.Analyzer) []string {
	var ns []string
	for _, a := range as {
		ns = append(ns, a.Name)
	}
	return ns
}

// resetFlags puts the analyzers' flags back to their defaults after a
// test, for the other tests of the process.
func resetFlags(t *testing.T) {
	t.Cleanup(func() {
		for _, a := range []*analysis.Analyzer{featuregate.Analyzer, pleg.Analyzer} {
			for _, n := range []string{"rules", "alpha-default-exempt", "note"} {
				if f := a.Flags.Lookup(n); f != nil {
					_ = f.Value.Set(f.DefValue)
				}
			}
		}
	})
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
	defaults := map[string]string{"rules": "auto", "exempt": "WindowsHostNetwork", "note": "false"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for dk, dv := range defaults {
			m[dk] = dv
		}
		m[k] = v
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
		{name: "rules", settings: `{"featuregate": {"rules": "1.33"}}`, wantFlags: with("rules", "1.33"), wantNames: []string{"featuregate", "pleg"}},
		{name: "rules auto", settings: `{"featuregate": {"rules": "auto"}}`, wantFlags: defaults, wantNames: []string{"featuregate", "pleg"}},
		{name: "exempt list", settings: `{"featuregate": {"alphaDefaultExempt": ["A", "B"]}}`, wantFlags: with("exempt", "A,B"), wantNames: []string{"featuregate", "pleg"}},
		{name: "exempt none", settings: `{"featuregate": {"alphaDefaultExempt": []}}`, wantFlags: with("exempt", ""), wantNames: []string{"featuregate", "pleg"}},
		{name: "lowercased key, as viper passes it", settings: `{"featuregate": {"alphadefaultexempt": ["A"]}}`, wantFlags: with("exempt", "A"), wantNames: []string{"featuregate", "pleg"}},
		{name: "note", settings: `{"pleg": {"note": true}}`, wantFlags: with("note", "true"), wantNames: []string{"featuregate", "pleg"}},
		{name: "disable pleg", settings: `{"disable": ["pleg"]}`, wantFlags: defaults, wantNames: []string{"featuregate"}},
		{name: "disable featuregate", settings: `{"disable": ["featuregate"]}`, wantFlags: defaults, wantNames: []string{"pleg"}},
		{
			name:      "everything",
			settings:  `{"featuregate": {"rules": "1.35", "alphaDefaultExempt": ["WindowsHostNetwork", "X"]}, "pleg": {"note": true}, "disable": ["featuregate"]}`,
			wantFlags: map[string]string{"rules": "1.35", "exempt": "WindowsHostNetwork,X", "note": "true"},
			wantNames: []string{"pleg"},
		},

		{name: "unknown top-level key", settings: `{"notes": true}`, wantErr: `unknown key "notes"`},
		{name: "unknown nested key", settings: `{"pleg": {"nte": true}}`, wantErr: `unknown key "pleg.nte"`},
		{name: "flag name instead of key", settings: `{"featuregate": {"alpha-default-exempt": ["A"]}}`, wantErr: `unknown key "featuregate.alpha-default-exempt"`},
		{name: "note not a bool", settings: `{"pleg": {"note": "yes"}}`, wantErr: "pleg.note: got a string, want true or false"},
		{name: "rules as a YAML number", settings: `{"featuregate": {"rules": 1.3}}`, wantErr: `featuregate.rules: got a number, want a string (quote the version: rules: "1.33")`},
		{name: "exempt not a list", settings: `{"featuregate": {"alphaDefaultExempt": "A,B"}}`, wantErr: "featuregate.alphaDefaultExempt: got a string, want a list of strings"},
		{name: "section not a map", settings: `{"pleg": true}`, wantErr: "pleg: got a bool, want a map"},
		{name: "disable not a list", settings: `{"disable": "pleg"}`, wantErr: "disable: got a string, want a list of strings"},
		{name: "settings not a map", settings: `["pleg"]`, wantErr: "settings: got an array, want a map"},
		{name: "bad rules", settings: `{"featuregate": {"rules": "latest"}}`, wantErr: `featuregate.rules: "latest" is neither "auto" nor a Kubernetes minor`},
		{name: "exempt with a comma", settings: `{"featuregate": {"alphaDefaultExempt": ["A,B"]}}`, wantErr: `featuregate.alphaDefaultExempt: "A,B" is not a gate name`},
		{name: "disable unknown analyzer", settings: `{"disable": ["relist"]}`, wantErr: `disable: unknown analyzer "relist" (known: featuregate, pleg)`},
		{name: "disable everything", settings: `{"disable": ["pleg", "featuregate"]}`, wantErr: "every analyzer is disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resetFlags(t)
			// Dirty the flags first: a plugin must set every one of them.
			if err := featuregate.Analyzer.Flags.Set("rules", "1.20"); err != nil {
				t.Fatal(err)
			}
			if err := pleg.Analyzer.Flags.Set("note", "true"); err != nil {
				t.Fatal(err)
			}
			if err := featuregate.Analyzer.Flags.Set("alpha-default-exempt", "Stale"); err != nil {
				t.Fatal(err)
			}

			p, err := gclplugin.New(yamlish(t, tc.settings))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("New(%s) succeeded, want an error with %q", tc.settings, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "plegvet settings: ") {
					t.Fatalf("New(%s) error:\n  %v\nwant it to start with \"plegvet settings: \" and contain\n  %s", tc.settings, err, tc.wantErr)
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
			if got := flags(); !reflect.DeepEqual(got, tc.wantFlags) {
				t.Errorf("flags after BuildAnalyzers = %v, want %v", got, tc.wantFlags)
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

// TestBuildAnalyzersReturnsTheAnalyzers checks the analyzers handed out
// are plegvet's own, so that facts and flags are shared with go vet's.
func TestBuildAnalyzersReturnsTheAnalyzers(t *testing.T) {
	resetFlags(t)
	p, err := gclplugin.New(map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 2 || as[0] != featuregate.Analyzer || as[1] != pleg.Analyzer {
		t.Fatalf("BuildAnalyzers() = %v, want featuregate.Analyzer and pleg.Analyzer", names(as))
	}
	if err := analysis.Validate(as); err != nil {
		t.Fatal(err)
	}
}
