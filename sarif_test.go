package plegvet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sarifv210 "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
	"github.com/xeipuuv/gojsonschema"

	"github.com/plegvet/plegvet"
)

// The SARIF log validates against the 2.1.0 schema (through go-sarif's
// model and its embedded schema) and carries rules, regions, related
// locations and fixes.
func TestWriteSARIF(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod": "module k8s.io/kubernetes\n",
		"pkg/features/f.go": `package features

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
`,
	})
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Diagnostics) != 2 {
		t.Fatalf("diagnostics = %+v", rep.Diagnostics)
	}
	var buf bytes.Buffer
	if err := plegvet.WriteSARIF(&buf, "test", rep.Diagnostics); err != nil {
		t.Fatal(err)
	}
	// The model: go-sarif reads it back. (Its Validate checks what its
	// model writes back, with defaults of its own, not our bytes.)
	log, err := sarifv210.FromBytes(buf.Bytes(), sarifv210.WithStrictValidation())
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
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
						Help    struct{ Text string }
					}
				}
			}
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn, EndLine, EndColumn int }
					}
				}
				RelatedLocations []json.RawMessage
				Fixes            []struct {
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
	run := raw.Runs[0]
	ids := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		ids[r.ID] = true
		if r.Help.Text == "" || !strings.HasPrefix(r.HelpURI, "https://") {
			t.Errorf("rule %s lacks help or a URL", r.ID)
		}
	}
	for _, want := range []string{"featuregate/alpha-default-on", "featuregate/dependency-lock", "pleg/safety-net-gone", "pleg/gate-note", "rpc/rpc-missing"} {
		if !ids[want] {
			t.Errorf("no rule %s among %v", want, ids)
		}
	}
	byRule := map[string]int{}
	for i, r := range run.Results {
		byRule[r.RuleID] = i
	}
	alpha := run.Results[byRule["featuregate/alpha-default-on"]]
	loc := alpha.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "pkg/features/f.go" || loc.Region.StartLine != 9 || loc.Region.EndColumn <= loc.Region.StartColumn {
		t.Errorf("alpha-default-on at %+v", loc)
	}
	if len(alpha.Fixes) != 1 || alpha.Fixes[0].ArtifactChanges[0].Replacements[0].InsertedContent.Text != "false" {
		t.Errorf("alpha-default-on fixes = %+v", alpha.Fixes)
	}
	if conflict := run.Results[byRule["featuregate/conflicting-spec"]]; len(conflict.RelatedLocations) != 1 {
		t.Errorf("conflicting-spec related = %d", len(conflict.RelatedLocations))
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
