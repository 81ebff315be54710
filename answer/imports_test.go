package answer

import (
	"os/exec"
	"strings"
	"testing"
)

// The answers import srcpos and the extractors whose types are their
// parts, nothing that loads, analyses or words them.
func TestImportsOnlyTheExtractors(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{}
	for _, p := range []string{"srcpos", "featuregates", "featurelist", "plegperiods", "criproto", "nodeverdict", "runtimestream", "runtimehang", "ladder"} {
		allowed["github.com/plegvet/plegvet/"+p] = true
	}
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, "github.com/plegvet/plegvet") && !allowed[imp] {
			t.Errorf("package answer imports %s", imp)
		}
	}
}
