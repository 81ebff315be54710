package layering_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/plegvet/plegvet"

// drivers are the packages under internal/ that depend on analyzers by
// design, each with why. Keep the list short: plumbing takes what it needs
// from its callers as plain data (internal/sarif takes the suite's rules,
// internal/analysisrun the analyzers to run).
var drivers = map[string]string{
	module + "/internal/suite":         "the one list of analyzers: it builds each and reads its checks and flags",
	module + "/internal/nodeindex/gen": "go generate's command: the index holds the library's own answers (LoadNodeSource)",
}

// above reports whether a package sits above the plumbing: the root
// package (the library) or an analyzer.
func above(path string) bool {
	return path == module || strings.HasPrefix(path, module+"/analyzer/")
}

// No package under internal/ depends, directly or through others, on the
// root package or on a package under analyzer/, except the drivers. Test
// files do not count: a test may exercise its package through the library.
func TestInternalDependsOnNothingAbove(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", module+"/internal/...")
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("go list: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Fatalf("go list: %v", err)
	}
	listed := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath    string
			Imports, Deps []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		listed[p.ImportPath] = true
		if _, ok := drivers[p.ImportPath]; ok {
			continue
		}
		for _, d := range p.Deps {
			if !above(d) {
				continue
			}
			how := "depends on"
			for _, imp := range p.Imports {
				if imp == d {
					how = "imports"
				}
			}
			t.Errorf("%s %s %s: plumbing takes what it needs from its callers", p.ImportPath, how, d)
		}
	}
	if len(listed) < 2 {
		t.Fatalf("go list listed %d packages under internal/", len(listed))
	}
	for p := range drivers {
		if !listed[p] {
			t.Errorf("drivers names %s, which is no package under internal/", p)
		}
	}
}
