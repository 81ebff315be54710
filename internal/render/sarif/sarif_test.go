package sarif_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sarifv210 "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/xeipuuv/gojsonschema"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/analysis/check"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/render/sarif"
)

// features has two findings: an Alpha gate on by default (with a fix) and
// a gate declared twice (with a related position).
const features = `package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	"Eager": {{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Alpha}},
	"Twice": {{Version: version.MustParse("1.35"), Default: false, PreRelease: featuregate.Alpha}},
}

var again = map[featuregate.Feature]featuregate.VersionedSpecs{
	"Twice": {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
}
`

func diagnostics(t *testing.T) (root string, ds []answer.Diagnostic) {
	t.Helper()
	root = t.TempDir()
	for name, content := range map[string]string{"go.mod": "module k8s.io/kubernetes\n", "pkg/features/f.go": features} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Diagnostics) != 2 {
		t.Fatalf("diagnostics = %+v", rep.Diagnostics)
	}
	return root, rep.Diagnostics
}

// The SARIF log validates against the 2.1.0 schema and carries rules,
// regions, related locations and fixes, and what GitHub code scanning
// reads: %SRCROOT% and its value, an invocation that says whether it
// succeeded, a fingerprint per result, each rule's help, URL and level;
// and no property left at a default (no empty array, no -1).
func TestWriteSARIF(t *testing.T) {
	root, ds := diagnostics(t)
	var buf bytes.Buffer
	if err := sarif.Write(&buf, sarif.Run{Version: "test", Category: sarif.VetCategory, Rules: suite.Rules(), Results: ds, Root: root, Successful: true}); err != nil {
		t.Fatal(err)
	}
	// The model: go-sarif reads it back. (Its own validation cannot
	// judge a file without default properties: its model writes each
	// array it read as absent back as null.)
	log, err := sarifv210.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || len(log.Runs[0].Results) != 2 {
		t.Fatalf("go-sarif read %d runs", len(log.Runs))
	}
	// The schema: our own bytes against the SARIF 2.1.0 JSON schema that
	// go-sarif embeds (read from its source in the module cache).
	res, err := gojsonschema.Validate(gojsonschema.NewStringLoader(sarifSchema(t)), gojsonschema.NewBytesLoader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid() {
		t.Fatalf("SARIF does not validate against the 2.1.0 schema: %v", res.Errors())
	}
	var raw struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []struct {
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Invocations        []struct {
				ExecutionSuccessful *bool `json:"executionSuccessful"`
			}
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct {
						ID                   string `json:"id"`
						Name                 string `json:"name"`
						HelpURI              string `json:"helpUri"`
						Help                 struct{ Text, Markdown string }
						DefaultConfiguration struct{ Level string }
					}
				}
			}
			Results []struct {
				RuleID              string
				RuleIndex           int
				Level               string
				PartialFingerprints map[string]string
				Locations           []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn, EndLine, EndColumn int }
					}
				}
				RelatedLocations []struct {
					ID      int
					Message struct{ Text string }
				}
				Fixes []struct {
					ArtifactChanges []struct {
						Replacements []struct {
							InsertedContent struct{ Text string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Schema != sarif.SchemaURI || raw.Version != "2.1.0" || raw.Runs[0].Tool.Driver.Name != "plegvet" {
		t.Errorf("log header: %s %s %s", raw.Schema, raw.Version, raw.Runs[0].Tool.Driver.Name)
	}
	run := raw.Runs[0]
	if got, want := run.OriginalURIBaseIDs["%SRCROOT%"].URI, "file://"+filepath.ToSlash(root)+"/"; got != want {
		t.Errorf("%%SRCROOT%% is %q, want %q", got, want)
	}
	if len(run.Invocations) != 1 || run.Invocations[0].ExecutionSuccessful == nil || !*run.Invocations[0].ExecutionSuccessful {
		t.Errorf("invocations %+v: want one, successful", run.Invocations)
	}
	ids := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		ids[r.ID] = i
		if r.Help.Text == "" || !strings.HasPrefix(r.HelpURI, "https://") || !strings.HasSuffix(r.ID, "/"+r.Name) {
			t.Errorf("rule %s (%s) lacks help or a URL", r.ID, r.Name)
		}
		if !strings.Contains(r.Help.Markdown, "("+r.HelpURI+")") || r.DefaultConfiguration.Level == "" {
			t.Errorf("rule %s: help.markdown %q links no %s, or no default level (%q)", r.ID, r.Help.Markdown, r.HelpURI, r.DefaultConfiguration.Level)
		}
	}
	fingerprints := map[string]bool{}
	for _, r := range run.Results {
		fp := r.PartialFingerprints[sarif.FingerprintKey]
		if fp == "" || fingerprints[fp] {
			t.Errorf("result of %s: fingerprint %q, empty or another result's", r.RuleID, fp)
		}
		fingerprints[fp] = true
	}
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if where := defaults(doc, "$"); len(where) > 0 {
		t.Errorf("properties left at their defaults: %v", where)
	}
	for _, want := range []string{"featuregate/alpha-default-on", "featuregate/dependency-lock", "pleg/safety-net-gone", "pleg/gate-note", "rpc/rpc-missing"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("no rule %s among %v", want, ids)
		}
	}
	byRule := map[string]int{}
	for i, r := range run.Results {
		byRule[r.RuleID] = i
		if ids[r.RuleID] != r.RuleIndex || r.Level != "warning" {
			t.Errorf("result of %s: ruleIndex %d (rule at %d), level %s", r.RuleID, r.RuleIndex, ids[r.RuleID], r.Level)
		}
	}
	alpha := run.Results[byRule["featuregate/alpha-default-on"]]
	loc := alpha.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "pkg/features/f.go" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" || loc.Region.StartLine != 9 || loc.Region.EndColumn <= loc.Region.StartColumn {
		t.Errorf("alpha-default-on at %+v", loc)
	}
	if len(alpha.Fixes) != 1 || alpha.Fixes[0].ArtifactChanges[0].Replacements[0].InsertedContent.Text != "false" {
		t.Errorf("alpha-default-on fixes = %+v", alpha.Fixes)
	}
	if conflict := run.Results[byRule["featuregate/conflicting-spec"]]; len(conflict.RelatedLocations) != 1 || conflict.RelatedLocations[0].ID != 1 || conflict.RelatedLocations[0].Message.Text == "" {
		t.Errorf("conflicting-spec related = %+v", conflict.RelatedLocations)
	}
}

// Every check of the suite is a rule, with its doc bullet as help and its
// group's URL, and every rule is a check of the suite.
func TestRulesAreTheSuitesChecks(t *testing.T) {
	var buf bytes.Buffer
	if err := sarif.Write(&buf, sarif.Run{Version: "test", Rules: suite.Rules()}); err != nil {
		t.Fatal(err)
	}
	log, err := sarifv210.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		g, doc, ok := suite.Rule(*r.Name)
		if !ok || *r.ID != g.Name+"/"+string(doc.Check) || *r.Help.Text != doc.Text || *r.HelpURI != g.URL {
			t.Errorf("rule %s: not the suite's check %s (%v)", *r.ID, *r.Name, ok)
		}
		got = append(got, *r.ID)
	}
	var want []string
	for _, g := range suite.Groups() {
		for _, c := range g.Checks {
			want = append(want, g.Name+"/"+string(c.Check))
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rules %v\nwant %v", got, want)
	}
}

// A finding of a check the suite does not list still gets a rule.
func TestUnknownCategory(t *testing.T) {
	var buf bytes.Buffer
	ds := []answer.Diagnostic{{Category: "new-check", Message: "m", Pos: sarif.Pos{File: "a.go", Line: 1, Column: 1}}}
	if err := sarif.Write(&buf, sarif.Run{Version: "test", Rules: suite.Rules(), Results: ds}); err != nil {
		t.Fatal(err)
	}
	log, err := sarifv210.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0].Results[0]
	rules := log.Runs[0].Tool.Driver.Rules
	if *r.RuleID != "new-check" || *rules[r.RuleIndex].ID != "new-check" {
		t.Errorf("result rule %s at %d", *r.RuleID, r.RuleIndex)
	}
}

// A result's level is its rule's severity; a rule of its own is a warning.
func TestLevelIsTheRulesSeverity(t *testing.T) {
	rules := []check.Rule{{ID: "g/informs", Doc: check.Doc{Check: "informs", Text: "informs.", Severity: check.Note}}}
	ds := []answer.Diagnostic{{Category: "informs", Message: "m"}, {Category: "new-check", Message: "m"}}
	var buf bytes.Buffer
	if err := sarif.Write(&buf, sarif.Run{Version: "test", Rules: rules, Results: ds}); err != nil {
		t.Fatal(err)
	}
	log, err := sarifv210.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range log.Runs[0].Results {
		got = append(got, *r.RuleID+"="+r.Level)
	}
	if want := []string{"g/informs=note", "new-check=warning"}; !slices.Equal(got, want) {
		t.Errorf("levels %v, want %v", got, want)
	}
}

// defaults lists where doc holds an empty array (but a run's results), an
// empty object or -1: what a SARIF reader takes as "not given".
func defaults(doc any, at string) []string {
	var out []string
	switch v := doc.(type) {
	case map[string]any:
		if len(v) == 0 {
			out = append(out, at)
		}
		for k, m := range v {
			if a, ok := m.([]any); ok && len(a) == 0 && k != "results" {
				out = append(out, at+"."+k)
			}
			out = append(out, defaults(m, at+"."+k)...)
		}
	case []any:
		for i, m := range v {
			out = append(out, defaults(m, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case float64:
		if v == -1 {
			out = append(out, at)
		}
	}
	return out
}

// Each log is one run whose automationDetails.id names its category,
// "plegvet/CATEGORY/", so that code scanning, which refuses a log with two
// runs of one tool and category, takes it, and logs of different
// categories (report, vet) uploaded for one commit keep their own alerts.
func TestOneRunPerCategory(t *testing.T) {
	for category, want := range map[string]string{sarif.VetCategory: "plegvet/vet/", "report": "plegvet/report/", "": "plegvet/"} {
		var buf bytes.Buffer
		if err := sarif.Write(&buf, sarif.Run{Version: "test", Category: category, Rules: suite.Rules()}); err != nil {
			t.Fatal(err)
		}
		log, err := sarifv210.FromBytes(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if len(log.Runs) != 1 {
			t.Fatalf("category %q: %d runs, want 1", category, len(log.Runs))
		}
		if ad := log.Runs[0].AutomationDetails; ad == nil || ad.ID == nil || *ad.ID != want {
			t.Errorf("category %q: automationDetails %+v, want id %q", category, ad, want)
		}
		if got := sarif.AutomationID(category); got != want {
			t.Errorf("AutomationID(%q) = %q, want %q", category, got, want)
		}
	}
}

// A run that did not read everything says so: not successful, with why.
func TestInvocationNotSuccessful(t *testing.T) {
	var buf bytes.Buffer
	if err := sarif.Write(&buf, sarif.Run{Version: "test", Rules: suite.Rules(), Notifications: []string{"pkg/x: did not load"}}); err != nil {
		t.Fatal(err)
	}
	log, err := sarifv210.FromBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	inv := log.Runs[0].Invocations
	if len(inv) != 1 || inv[0].ExecutionSuccessful == nil || *inv[0].ExecutionSuccessful || len(inv[0].ToolExecutionNotifications) != 1 || *inv[0].ToolExecutionNotifications[0].Message.Text != "pkg/x: did not load" {
		t.Errorf("invocations %+v: want one, not successful, saying why", inv)
	}
	if log.Runs[0].OriginalUriBaseIds != nil || log.Runs[0].Results == nil {
		t.Errorf("no root: want no %%SRCROOT%% value, and results [] (none found), got %v, %v", log.Runs[0].OriginalUriBaseIds, log.Runs[0].Results)
	}
}

// A finding keeps its fingerprint when lines are added above it, and
// two findings of one rule on identical lines have different ones.
func TestFingerprintsFollowLines(t *testing.T) {
	root := t.TempDir()
	src := "package p\n\nvar a = 1 // same\nvar a = 1 // same\n"
	write := func(content string) {
		if err := os.WriteFile(filepath.Join(root, "f.go"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prints := func(lines ...int) []string {
		var rs []answer.Diagnostic
		for _, l := range lines {
			rs = append(rs, answer.Diagnostic{Category: "c", Message: "m", Pos: sarif.Pos{File: "f.go", Line: l, Column: 1}})
		}
		var buf bytes.Buffer
		if err := sarif.Write(&buf, sarif.Run{Rules: suite.Rules(), Results: rs, Root: root}); err != nil {
			t.Fatal(err)
		}
		log, err := sarifv210.FromBytes(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range log.Runs[0].Results {
			out = append(out, r.PartialFingerprints[sarif.FingerprintKey])
		}
		return out
	}
	write(src)
	before := prints(3, 4)
	write("// a comment\n// and another\n" + src)
	after := prints(5, 6)
	if before[0] == before[1] || !slices.Equal(before, after) {
		t.Errorf("fingerprints %v, then with two lines above %v: want two, the same", before, after)
	}
	if moved := prints(4, 4); moved[0] == before[0] {
		t.Errorf("a finding on another line kept the fingerprint %s", moved[0])
	}
}

// sarifSchema is the SARIF 2.1.0 schema as go-sarif ships it.
func sarifSchema(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/owenrumney/go-sarif/v3").Output()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg", "report", "v210", "sarif", "schema.go"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(src), "`")
	schema, _, ok2 := strings.Cut(rest, "`")
	if !ok || !ok2 || !strings.Contains(schema, "sarif-schema-2.1.0") {
		t.Fatal("go-sarif's schema.go does not hold the 2.1.0 schema in a raw string")
	}
	return schema
}
