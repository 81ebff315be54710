package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/tree"
)

// A package without types is refused with its name: the checker would
// panic on it where no caller can recover.
func TestAnalyzeRefusesUntyped(t *testing.T) {
	a := &analysis.Analyzer{Name: "noop", Doc: "nothing", Run: func(*analysis.Pass) (any, error) { return nil, nil }}
	_, err := Analyze([]*analysis.Analyzer{a}, []*packages.Package{{ID: "example.com/p", PkgPath: "example.com/p"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "example.com/p: the package could not be type-checked") {
		t.Errorf("Analyze = %v, want the package named as not type-checked", err)
	}
}

// lookalikeTree is a tree of one package, pkg/features, whose source is
// given.
func lookalikeTree(t *testing.T, src string) *tree.Tree {
	t.Helper()
	root := t.TempDir()
	for name, content := range map[string]string{"go.mod": "module k8s.io/kubernetes\n", "pkg/features/f.go": src} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := tree.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Beside runs on the loaded packages while the analyzers run, and
// Analyse returns only once both are done: an analyzer that waits for
// Beside to have started finishes, and what Beside saw is there when
// Analyse returns.
func TestBesideRunsWhileAnalyzersRun(t *testing.T) {
	tr := lookalikeTree(t, "package features\n\nconst Gate = \"Gate\"\n")
	started := make(chan struct{})
	a := &analysis.Analyzer{Name: "waits", Doc: "waits for Beside", Run: func(*analysis.Pass) (any, error) {
		select {
		case <-started:
			return nil, nil
		case <-time.After(time.Minute):
			return nil, errors.New("Beside did not start while the analyzers ran")
		}
	}}
	var saw []string
	run, err := Analyse(context.Background(), Request{
		Tree: tr, Paths: []string{"k8s.io/kubernetes/pkg/features"}, Analyzers: []*analysis.Analyzer{a},
		Beside: func(res *Loaded) {
			close(started)
			time.Sleep(10 * time.Millisecond) // past the analyzer's end
			for _, p := range res.Packages {
				saw = append(saw, p.PkgPath)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out := run.Root(a, "k8s.io/kubernetes/pkg/features"); out == nil || out.Err != nil {
		t.Fatalf("the analyzer's outcome: %+v", out)
	}
	if want := []string{"k8s.io/kubernetes/pkg/features"}; !slices.Equal(saw, want) {
		t.Errorf("Beside saw %q when Analyse returned, want %q", saw, want)
	}
}

// A panic in Beside reaches Analyse's caller, as it would if Beside ran
// on its goroutine: the language server recovers its handlers' panics,
// which a goroutine of Analyse's own would not let it do.
func TestBesidePanicReachesTheCaller(t *testing.T) {
	tr := lookalikeTree(t, "package features\n")
	a := &analysis.Analyzer{Name: "noop", Doc: "nothing", Run: func(*analysis.Pass) (any, error) { return nil, nil }}
	defer func() {
		if r := recover(); r != "beside's panic" {
			t.Errorf("recovered %v, want Beside's panic", r)
		}
	}()
	Analyse(context.Background(), Request{
		Tree: tr, Paths: []string{"k8s.io/kubernetes/pkg/features"}, Analyzers: []*analysis.Analyzer{a},
		Beside: func(*Loaded) { panic("beside's panic") },
	})
	t.Error("Analyse returned")
}
