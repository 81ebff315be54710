package srcload

import (
	"context"
	"fmt"
	"go/types"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/go/packages"
)

// planTree is a look-alike load with a diamond of imports from source
// (top -> left, right -> base), problems in each, a declarations-only
// import that is cut, models and stubs asked for at different depths: one
// at a time, top's first import (a model) is answered first and its
// import in its last file (right) last; checked at once, top is last.
func planTree(t *testing.T) func() (*Result, []string) {
	tr := fixtureTree(t, map[string]string{
		"pkg/top/top.go": `package top

import (
	"time"

	"k8s.io/kubernetes/pkg/left"
	api "k8s.io/cri-api/pkg/apis/runtime/v1"
)

var Sum = left.L + rightR

func id(s *api.Sandbox) string { return s.GetId() }

var _ = time.Second
`,
		"pkg/top/z.go": `package top

import "k8s.io/kubernetes/pkg/right"

const rightR = right.R
`,
		"pkg/top/broken.go": "package top\n\nvar = 1\n",
		"pkg/left/left.go": `package left

import (
	"k8s.io/kubernetes/pkg/base"
	"example.com/stubbed/one"
)

const L = base.B + 1

var _ = one.X
`,
		"pkg/left/other.go": "package elsewhere\n",
		"pkg/right/right.go": `package right

import (
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/base"
	"example.com/stubbed/two"
)

const R = base.B * 2

var _ featuregate.Feature = "x"
var _ = two.Y
var bad int = "typed wrong"
`,
		"pkg/right/broken.go":               "package right\n\nfunc (\n",
		"pkg/base/base.go":                  "package base\n\nconst B = 20\n",
		"pkg/features/f.go":                 "package features\n",
		"pkg/base/broken.go":                "package base\n\nconst = \n",
		"staging/src/k8s.io/cri-api/go.mod": "module k8s.io/cri-api\n",
		"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.pb.go": `package v1

import "k8s.io/kubernetes/pkg/base"

type Sandbox struct{ Id string }

func (s *Sandbox) GetId() string { return s.Id }

type Unreached struct{}

const Base = base.B
`,
	})
	isAPI := func(p string) bool { return strings.HasPrefix(p, "k8s.io/cri-api/") }
	fromSource := func(p string) bool { return strings.HasPrefix(p, "k8s.io/") }
	return func() (*Result, []string) {
		res, err := LoadImports(context.Background(), tr, Imports{FromSource: fromSource, DeclarationsOnly: isAPI, TreeRelativeNames: true}, "k8s.io/kubernetes/pkg/top")
		if err != nil {
			t.Fatal(err)
		}
		return res, describe(res)
	}
}

// describe is what a load recorded, in order, with raw positions: the
// same file set layout gives the same token.Pos values, models' included.
func describe(res *Result) []string {
	var out []string
	for _, p := range res.Problems {
		out = append(out, "problem "+p.Error())
	}
	out = append(out, "modelled "+strings.Join(res.Modelled, " "), "stubbed "+strings.Join(res.Stubbed, " "))
	seen := map[*types.Package]bool{}
	var walk func(pkg *types.Package)
	walk = func(pkg *types.Package) {
		if seen[pkg] {
			return
		}
		seen[pkg] = true
		for _, imp := range pkg.Imports() {
			walk(imp)
		}
		for _, name := range pkg.Scope().Names() {
			obj := pkg.Scope().Lookup(name)
			out = append(out, fmt.Sprintf("%s.%s %d %s", pkg.Path(), name, obj.Pos(), res.Fset.Position(obj.Pos())))
		}
	}
	checked := map[*packages.Package]bool{}
	var errs func(p *packages.Package)
	errs = func(p *packages.Package) {
		if checked[p] {
			return
		}
		checked[p] = true
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			errs(p.Imports[path])
		}
		for _, e := range p.TypeErrors {
			out = append(out, "type error "+e.Error())
		}
	}
	for _, p := range res.Packages {
		walk(p.Types)
		errs(p)
	}
	return out
}

// Checking on every CPU records what checking one package at a time
// does, in the same order (problems, positions, models, stubs, type
// errors), and checks each package after those it imports.
func TestPlannedAsOneAtATime(t *testing.T) {
	load := planTree(t)
	var order []string
	var cut []string
	deps := map[string]string{}
	onPlanned = func(o []string, planned map[string]*plannedPkg) {
		order = o
		for p, pl := range planned {
			deps[strings.TrimPrefix(p, "k8s.io/kubernetes/pkg/")] = strings.Join(pl.deps, " ")
		}
		for _, f := range planned["k8s.io/cri-api/pkg/apis/runtime/v1"].files {
			for _, d := range f.Decls {
				cut = append(cut, fmt.Sprint(d.Pos()))
			}
		}
	}
	t.Cleanup(func() { onPlanned = nil })
	res, atOnce := load()
	want := []string{"k8s.io/kubernetes/pkg/base", "k8s.io/kubernetes/pkg/left", "k8s.io/cri-api/pkg/apis/runtime/v1", "k8s.io/kubernetes/pkg/right", "k8s.io/kubernetes/pkg/top"}
	if !slices.Equal(order, want) {
		t.Errorf("plan %v, want %v", order, want)
	}
	// Each waits for what it imports and nothing else: left and right,
	// and the API, are checked at once.
	wantDeps := map[string]string{
		"base": "", "left": "k8s.io/kubernetes/pkg/base", "right": "k8s.io/kubernetes/pkg/base",
		"k8s.io/cri-api/pkg/apis/runtime/v1": "k8s.io/kubernetes/pkg/base",
		"top":                                "k8s.io/kubernetes/pkg/left k8s.io/cri-api/pkg/apis/runtime/v1 k8s.io/kubernetes/pkg/right",
	}
	if !maps.Equal(deps, wantDeps) {
		t.Errorf("planned imports %v, want %v", deps, wantDeps)
	}
	if len(cut) != 3 { // the import, Sandbox and GetId; not Unreached, not Base
		t.Errorf("the API planned with %d declarations, want 3 (cut to what top selects)", len(cut))
	}
	if len(res.Problems) < 4 || !slices.ContainsFunc(atOnce, func(s string) bool { return strings.HasPrefix(s, "type error pkg/right/") }) {
		t.Fatalf("the fixture lost its problems or type errors: %v", atOnce)
	}

	onPlanned = func([]string, map[string]*plannedPkg) { t.Error("planned while checking one package at a time") }
	checkOneAtATime = true
	t.Cleanup(func() { checkOneAtATime = false })
	_, oneAtATime := load()
	if !slices.Equal(atOnce, oneAtATime) {
		t.Errorf("checked at once:\n%s\none at a time:\n%s", strings.Join(atOnce, "\n"), strings.Join(oneAtATime, "\n"))
	}
}

// Of the packages ready, the one with the most source to check after it
// goes first: right, ten times left's size, before left, though planned
// after it.
func TestCheckedLongestFirst(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/features/f.go":  "package features\n",
		"pkg/top/top.go":     "package top\n\nimport (\n\t\"k8s.io/kubernetes/pkg/left\"\n\t\"k8s.io/kubernetes/pkg/right\"\n)\n\nconst T = left.L + right.R\n",
		"pkg/left/left.go":   "package left\n\nconst L = 1\n",
		"pkg/right/right.go": "package right\n\nconst R = 2\n\nfunc f() int {\n" + strings.Repeat("\tprintln(R)\n", 200) + "\treturn R\n}\n",
	})
	var checked []string
	onCheck = func(p string) { checked = append(checked, strings.TrimPrefix(p, "k8s.io/kubernetes/pkg/")) }
	defer func(n int) { onCheck = nil; runtime.GOMAXPROCS(n) }(runtime.GOMAXPROCS(1)) // one at a time: the order is the ranks'
	fromSource := func(p string) bool { return strings.HasPrefix(p, "k8s.io/") }
	if _, err := LoadImports(context.Background(), tr, Imports{FromSource: fromSource}, "k8s.io/kubernetes/pkg/top"); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(checked, " "), "right left top"; got != want {
		t.Errorf("checked %s, want %s", got, want)
	}
}

// With two CPUs, a package plan has planned is checked while plan walks
// on: plan waits, after planning left, for left's check to start, which
// a check that waited for the whole plan never does.
func TestCheckedWhilePlanning(t *testing.T) {
	tr := fixtureTree(t, map[string]string{
		"pkg/features/f.go":  "package features\n",
		"pkg/top/top.go":     "package top\n\nimport (\n\t\"k8s.io/kubernetes/pkg/left\"\n\t\"k8s.io/kubernetes/pkg/right\"\n)\n\nconst T = left.L + right.R\n",
		"pkg/left/left.go":   "package left\n\nconst L = 1\n",
		"pkg/right/right.go": "package right\n\nconst R = 2\n",
	})
	const left = "k8s.io/kubernetes/pkg/left"
	started := make(chan struct{})
	var once sync.Once
	overlapped := false
	onCheck = func(p string) {
		if p == left {
			once.Do(func() { close(started) })
		}
	}
	onAdded = func(p string) {
		if p != left {
			return
		}
		select {
		case <-started:
			overlapped = true
		case <-time.After(30 * time.Second):
		}
	}
	defer func(n int) { onCheck, onAdded = nil, nil; runtime.GOMAXPROCS(n) }(runtime.GOMAXPROCS(2))
	fromSource := func(p string) bool { return strings.HasPrefix(p, "k8s.io/") }
	res, err := LoadImports(context.Background(), tr, Imports{FromSource: fromSource}, "k8s.io/kubernetes/pkg/top")
	if err != nil {
		t.Fatal(err)
	}
	if !overlapped {
		t.Errorf("%s was not checked while plan walked on (within 30 s)", left)
	}
	if got := res.Packages[0].Types.Scope().Lookup("T"); got == nil || got.(*types.Const).Val().String() != "3" {
		t.Errorf("top.T = %v, want the constant 3", got)
	}
}
