package plegvet_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// In a checkout, keys from a staging module's gate list resolve through
// its source; findings carry related positions.
func TestGatesCheckout(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod": "module k8s.io/kubernetes\n",
		"staging/src/k8s.io/apiserver/pkg/features/features.go": `package features

import "k8s.io/component-base/featuregate"

const Renamed featuregate.Feature = "ServerRenamed"
`,
		"pkg/features/kube_features.go": `package features

import (
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"
)

var old = map[featuregate.Feature]featuregate.FeatureSpec{
	genericfeatures.Renamed: {Default: true, PreRelease: featuregate.Beta},
}

var again = map[featuregate.Feature]featuregate.FeatureSpec{
	genericfeatures.Renamed: {Default: false, PreRelease: featuregate.Beta},
}
`,
	})
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Gate("ServerRenamed")
	if g == nil || g.Unresolved != "" || g.Decl == nil || g.Decl.File != "staging/src/k8s.io/apiserver/pkg/features/features.go" || g.Decl.Line != 5 {
		t.Fatalf("gate = %+v, want ServerRenamed resolved through staging", g)
	}
	if len(rep.Diagnostics) != 1 {
		t.Fatalf("diagnostics = %+v, want one conflicting-spec", rep.Diagnostics)
	}
	d := rep.Diagnostics[0]
	if d.Category != "conflicting-spec" || d.Pos != (plegvet.Pos{File: "pkg/features/kube_features.go", Line: 13, Column: 2}) ||
		len(d.Related) != 1 || d.Related[0].Pos.Line != 9 || !strings.Contains(d.Related[0].Message, "first declared in old") {
		t.Errorf("diagnostic = %+v", d)
	}
}
