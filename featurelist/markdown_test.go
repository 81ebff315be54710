package featurelist

import (
	"bytes"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/featuregates"
)

func TestStageRanges(t *testing.T) {
	s := func(stage, v string) featuregates.Spec {
		return featuregates.Spec{PreRelease: featuregates.PreRelease(stage), Version: v}
	}
	for _, c := range []struct {
		specs []featuregates.Spec
		want  map[featuregates.PreRelease]string
	}{
		{[]featuregates.Spec{s("Alpha", "1.8"), s("Beta", "1.16")}, map[featuregates.PreRelease]string{"Alpha": "1.8–1.15", "Beta": "1.16–"}},
		// One release in a stage is one version; specs in any order.
		{[]featuregates.Spec{s("GA", "1.24"), s("Alpha", "1.22"), s("Beta", "1.23")}, map[featuregates.PreRelease]string{"Alpha": "1.22", "Beta": "1.23", "GA": "1.24–"}},
		// Repeated specs of a stage are one range; back to a stage spans it all.
		{[]featuregates.Spec{s("Alpha", "1.26"), s("Beta", "1.27"), s("Alpha", "1.30")}, map[featuregates.PreRelease]string{"Alpha": "1.26–", "Beta": "1.27–1.29"}},
		{[]featuregates.Spec{s("GA", "1.0"), s("Deprecated", "1.33")}, map[featuregates.PreRelease]string{"GA": "1.0–1.32", "Deprecated": "1.33–"}},
		// The minor before 1.0 is none: the range is open.
		{[]featuregates.Spec{s("Alpha", "1.0"), s("Beta", "1.0")}, map[featuregates.PreRelease]string{"Alpha": "1.0–", "Beta": "1.0–"}},
	} {
		got := stageRanges(c.specs)
		if len(got) != len(c.want) {
			t.Errorf("%v: %q, want %q", c.specs, got, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%v: %s = %q, want %q", c.specs, k, got[k], v)
			}
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	err := WriteMarkdown(&b, []featuregates.Gate{
		{Name: "beta", Specs: []featuregates.Spec{{PreRelease: "Beta", Version: "1.30", Default: true}}},
		{Name: "Zed", Specs: []featuregates.Spec{{PreRelease: "Alpha", Version: "1.20"}, {PreRelease: "GA", Version: "1.24", Default: true, LockToDefault: true}}, Dependencies: []string{"b", "a", "b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	// Rows by name as bytes: Zed before beta.
	if !strings.HasPrefix(lines[7], "| Zed | :ballot_box_with_check:&nbsp;1.24+ | :closed_lock_with_key:&nbsp;1.24+ | 1.20–1.23 |  | 1.24– |  | a<br>b | [code](https://cs.k8s.io/?q=%5CbZed%5Cb&") {
		t.Errorf("Zed's row: %q", lines[7])
	}
	if !strings.HasPrefix(lines[8], "| beta | :ballot_box_with_check:&nbsp;1.30+ |  |  | 1.30– |  |  |  | [code]") {
		t.Errorf("beta's row: %q", lines[8])
	}
	if !strings.HasPrefix(b.String(), "# Kubernetes Feature Gates\n\n<!--") || !strings.HasSuffix(b.String(), "(open-ended range) |\n") {
		t.Errorf("header or legend:\n%s", b.String())
	}
}

// A look-alike generator, written for this test: the text it writes as
// string literals, its imports, what it skips.
func lookAlikeGenerator() string {
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t_ \"k8s.io/kubernetes/pkg/features\"\n\tclientfeatures \"k8s.io/client-go/features\"\n)\n\n")
	b.WriteString("var skipFeatures = map[string]bool{\"AllAlpha\": true, \"AllBeta\": true}\n\nvar pieces = []string{\n")
	for _, s := range markdownText {
		b.WriteString("\t" + quote(s) + ",\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func quote(s string) string {
	r := strings.NewReplacer("\\", `\\`, "\"", `\"`, "\n", `\n`)
	return "\"" + r.Replace(s) + "\""
}

func TestReadMarkdownGenerator(t *testing.T) {
	src := lookAlikeGenerator()
	script := "#!/bin/sh\ngo run cmd/genfeaturegates/genfeaturegates.go -output=test/ref/list.md\n"
	g, err := ReadMarkdownGenerator("gen.go", []byte(src), "update.sh", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Imports, []string{"k8s.io/kubernetes/pkg/features", "k8s.io/client-go/features"}) || !slices.Equal(g.Skipped, []string{"AllAlpha", "AllBeta"}) || g.File != "test/ref/list.md" {
		t.Errorf("ReadMarkdownGenerator = %+v", g)
	}
	// Another layout is unknown, not compared with the wrong bytes.
	other := strings.Replace(src, quote("| Symbol | Meaning |\n"), quote("| Sign | Meaning |\n"), 1)
	if _, err := ReadMarkdownGenerator("gen.go", []byte(other), "update.sh", []byte(script)); err == nil || !strings.Contains(err.Error(), `gen.go: writes a Markdown list plegvet does not know: no "| Symbol | Meaning |\n"`) {
		t.Errorf("another legend: %v", err)
	}
	if _, err := ReadMarkdownGenerator("gen.go", []byte(src), "update.sh", []byte("go run other.go\n")); err == nil || !strings.HasPrefix(err.Error(), "update.sh: want a line running genfeaturegates.go") {
		t.Errorf("a script without the line: %v", err)
	}
}

// RegisteredMaps follows init's registrations one package deep.
func TestRegisteredMaps(t *testing.T) {
	sources := map[string]string{
		"k8s.io/kubernetes/pkg/features": `package features
import (
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	zpages "k8s.io/component-base/zpages/features"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/apimachinery/pkg/util/runtime"
)
func init() {
	runtime.Must(utilfeature.DefaultMutableFeatureGate.AddVersioned(kubeGates))
	runtime.Must(utilfeature.DefaultMutableFeatureGate.AddDependencies(kubeDeps))
	runtime.Must(zpages.AddFeatureGates(utilfeature.DefaultMutableFeatureGate))
	runtime.Must(clientfeatures.AddVersionedFeaturesToExistingFeatureGates(nil))
}
func notInit() { utilfeature.DefaultMutableFeatureGate.AddVersioned(otherGates) }
`,
		"k8s.io/component-base/zpages/features": `package features
func AddFeatureGates(g interface{ AddVersioned(any) error }) error { return g.AddVersioned(featureGates()) }
`,
		"k8s.io/client-go/features": `package features
func AddVersionedFeaturesToExistingFeatureGates(r interface{ AddVersioned(any) error }) error { return r.AddVersioned(clientGates) }
`,
	}
	parse := func(p string) ([]*ast.File, error) {
		src, ok := sources[p]
		if !ok {
			return nil, nil // outside the tree (runtime here)
		}
		f, err := goparser.ParseFile(token.NewFileSet(), p+".go", src, 0)
		return []*ast.File{f}, err
	}
	got, err := RegisteredMaps([]string{"k8s.io/kubernetes/pkg/features"}, parse)
	want := []MapRef{
		{"k8s.io/kubernetes/pkg/features", "kubeGates"},
		{"k8s.io/component-base/zpages/features", "featureGates"},
		{"k8s.io/client-go/features", "clientGates"},
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("RegisteredMaps = %v, %v; want %v", got, err, want)
	}
	// A registration in another shape is named, not dropped.
	sources["k8s.io/kubernetes/pkg/features"] = strings.Replace(sources["k8s.io/kubernetes/pkg/features"], "AddVersioned(kubeGates)", "AddVersioned(all[0])", 1)
	if _, err := RegisteredMaps([]string{"k8s.io/kubernetes/pkg/features"}, parse); err == nil || !strings.Contains(err.Error(), "k8s.io/kubernetes/pkg/features registers feature gates at init with AddVersioned(...), whose argument is not a map variable or a call returning one: not followed") {
		t.Errorf("an indexed map: %v", err)
	}
}

// FuzzReadMarkdownGenerator: any generator and script give a result or
// one error line naming the file, never a panic.
func FuzzReadMarkdownGenerator(f *testing.F) {
	f.Add([]byte(lookAlikeGenerator()), []byte("go run cmd/genfeaturegates/genfeaturegates.go -output=x.md\n"))
	f.Add([]byte("package main"), []byte(""))
	f.Fuzz(func(t *testing.T, src, script []byte) {
		g, err := ReadMarkdownGenerator("gen.go", src, "update.sh", script)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "gen.go") && !strings.HasPrefix(msg, "update.sh") {
				t.Errorf("error %q", msg)
			}
			return
		}
		if g.File == "" || len(g.Imports) == 0 {
			t.Errorf("ReadMarkdownGenerator = %+v without an error", g)
		}
	})
}
