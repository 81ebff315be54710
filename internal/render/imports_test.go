package render

import (
	"os/exec"
	"strings"
	"testing"
)

// Wording reads the answers and nothing that computes them.
func TestImportsOnlyTheAnswers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range strings.Fields(string(out)) {
		switch {
		case imp == "github.com/plegvet/plegvet/answer", imp == "github.com/plegvet/plegvet/srcpos":
		case strings.HasPrefix(imp, "github.com/plegvet/plegvet"):
			t.Errorf("package render imports %s", imp)
		}
	}
}
