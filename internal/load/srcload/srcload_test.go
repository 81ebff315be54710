package srcload

import (
	"context"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/load/tree"
)

func fixtureTree(t *testing.T, files map[string]string) *tree.Tree {
	t.Helper()
	root := t.TempDir()
	files["go.mod"] = "module k8s.io/kubernetes\n"
	for name, content := range files {
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

func TestLoad(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/features/features.go": `package features

import (
	"time"

	generic "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"
)

const Local featuregate.Feature = "Local"

const Period = 300 * time.Second

var gates = map[featuregate.Feature]featuregate.FeatureSpec{
	Local:         {Default: true, PreRelease: featuregate.Beta},
	generic.Other: {Default: true, PreRelease: featuregate.GA},
}
`,
		"pkg/features/windows.go":       "//go:build windows\n\npackage features\n\nfunc onlyOnWindows() {}\n",
		"pkg/features/features_test.go": "package features\n\nfunc inTests() {}\n",
		"pkg/features/broken.go":        "package features\n\nvar x = \n",
		"pkg/user/user.go": `package user

import "k8s.io/kubernetes/pkg/features"

var p = features.Period
`,
	})
	res, err := Load(context.Background(), tr, "k8s.io/kubernetes/pkg/features", "k8s.io/kubernetes/pkg/user")
	if err != nil {
		t.Fatal(err)
	}
	features, user := res.Packages[0], res.Packages[1]
	if got := strings.Join(res.Modelled, " "); got != "k8s.io/apimachinery/pkg/util/version k8s.io/component-base/featuregate time" {
		t.Errorf("Modelled = %s", got)
	}
	if got := strings.Join(res.Stubbed, " "); got != "k8s.io/apiserver/pkg/features" {
		t.Errorf("Stubbed = %s", got)
	}
	if len(res.Problems) != 1 || res.Problems[0].Pos.Filename != "pkg/features/broken.go" || res.Problems[0].Pos.Line != 3 {
		t.Errorf("Problems = %v, want one in pkg/features/broken.go:3", res.Problems)
	}
	var names []string
	for _, f := range features.Syntax {
		names = append(names, filepath.Base(res.Fset.File(f.Pos()).Name()))
	}
	if got := strings.Join(names, " "); got != "broken.go features.go" {
		t.Errorf("files = %s (build constraints and tests must be left out)", got)
	}
	// Package time from its model: the constant folds as with the real one.
	if c, ok := features.Types.Scope().Lookup("Period").(*types.Const); !ok || c.Val().String() != "300000000000" {
		t.Errorf("Period = %v", features.Types.Scope().Lookup("Period"))
	}
	// Facts flow between requested packages: user imports features.
	if user.Imports["k8s.io/kubernetes/pkg/features"] != features {
		t.Errorf("user.Imports = %v", user.Imports)
	}
	// The value under a key of a stubbed package is still typed.
	typed := 0
	ast.Inspect(features.Syntax[1], func(n ast.Node) bool {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "PreRelease" {
				if tv, ok := features.TypesInfo.Types[kv.Value]; ok && tv.Value != nil {
					typed++
				}
			}
		}
		return true
	})
	if typed != 2 {
		t.Errorf("%d of 2 PreRelease values typed", typed)
	}
	if !features.IllTyped {
		t.Error("a package with stubbed imports in use must be marked ill-typed")
	}
}

func TestLoadMissingPackage(t *testing.T) {
	tr := fixtureTree(t, map[string]string{"pkg/features/f.go": "package features\n"})
	_, err := Load(context.Background(), tr, "k8s.io/kubernetes/pkg/kubelet/pleg")
	if err == nil || !strings.Contains(err.Error(), "the tree has no package k8s.io/kubernetes/pkg/kubelet/pleg (looked for pkg/kubelet/pleg)") {
		t.Errorf("err = %v", err)
	}
}

func TestGuessName(t *testing.T) {
	for in, want := range map[string]string{
		"k8s.io/api/core/v1": "core", "github.com/x/go-yaml": "yaml", "gopkg.in/yaml.v3": "yaml", "k8s.io/utils/clock": "clock", "a/b-c": "b_c",
	} {
		if got := guessName(in); got != want {
			t.Errorf("guessName(%s) = %s, want %s", in, got, want)
		}
	}
}

// A stubbed import costs one type error, at the import, however many
// names are selected from it: go/types checks the importer against a
// package of its own it calls fake, as it does where an import fails,
// and formats no "undefined: x.Y" for each of pkg/kubelet's 2,200. A
// package read from source that declares nothing is no stub: a name it
// lacks is an error.
func TestStubSelectionsCostNoErrors(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/features/f.go": "package features\n",
		"pkg/empty/doc.go":  "// Package empty declares nothing.\npackage empty\n",
		"pkg/p/p.go": "package p\n\nimport (\n\t\"example.com/klog/v2\"\n\t\"example.com/stub\"\n\n\t\"k8s.io/kubernetes/pkg/empty\"\n)\n\n" +
			"var A = stub.A\nvar B stub.B\n\nfunc f() { stub.C(stub.D{}); _ = stub.E.F; klog.InfoS(\"x\") }\n\nvar G = empty.G\n",
	})
	fromSource := func(p string) bool { return strings.HasPrefix(p, "k8s.io/") }
	for _, oneAtATime := range []bool{false, true} {
		checkOneAtATime = oneAtATime
		res, err := LoadImports(context.Background(), tr, Imports{FromSource: fromSource}, "k8s.io/kubernetes/pkg/p")
		checkOneAtATime = false
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, te := range res.Packages[0].TypeErrors {
			msgs = append(msgs, te.Msg)
		}
		want := []string{
			"could not import example.com/klog/v2 (stubbed: plegvet does not read it from source)",
			"could not import example.com/stub (stubbed: plegvet does not read it from source)",
			"undefined: empty.G",
		}
		if !slices.Equal(msgs, want) {
			t.Errorf("one at a time %v: type errors %q, want %q", oneAtATime, msgs, want)
		}
		if want := []string{"example.com/klog/v2", "example.com/stub"}; !slices.Equal(res.Stubbed, want) {
			t.Errorf("one at a time %v: stubbed %q, want %q", oneAtATime, res.Stubbed, want)
		}
		// The stand-in is named as the import's path says (klog, not v2).
		names := map[string]string{}
		for id, obj := range res.Packages[0].TypesInfo.Uses {
			if pn, ok := obj.(*types.PkgName); ok {
				names[id.Name] = pn.Imported().Path()
			}
		}
		if names["klog"] != "example.com/klog/v2" || names["stub"] != "example.com/stub" {
			t.Errorf("one at a time %v: package names used %v, want klog and stub", oneAtATime, names)
		}
	}
}
