package srcload

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/plegvet/plegvet/internal/load/workcount"
)

// The CRI API look-alike: a generated-style package of which the PLEG code
// reaches a part.
const apiLookalike = `package v1

type EventType int32

const (
	EventType_CREATED EventType = iota
	EventType_STOPPED
)

var EventType_name = map[int32]string{0: "CREATED", 1: "STOPPED"}

type Response struct {
	Type   EventType
	Status *Status
}

func (r *Response) GetType() EventType { return r.Type }

type Status struct{ Id string }

type Unused struct{ Deep *Deeper }

func (u *Unused) GetDeep() *Deeper { return u.Deep }

type Deeper struct{}

var descriptor = []byte{1, 2, 3}

func helper() int { return len(descriptor) }
`

func TestDeclarationsOnlyImportsAreCut(t *testing.T) {
	isAPI := func(p string) bool { return strings.HasPrefix(p, "k8s.io/cri-api/") }
	for _, tc := range []struct {
		name string
		pleg string
		// wantCut are the names the load has cut from the API.
		wantCut []string
	}{
		{
			name: "only what is selected, and what it mentions",
			pleg: `package pleg

import runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

func stopped(r *runtimeapi.Response) bool {
	return r.GetType() == runtimeapi.EventType_STOPPED && r.Status.Id != ""
}
`,
			wantCut: []string{"Deeper", "EventType_name", "Unused", "descriptor", "helper"},
		},
		{
			// later is imported after the API is cut: parsed ahead of the
			// cut, it keeps what it selects (Unused, and Deeper, which
			// Unused mentions), and the load runs once.
			name: "a package imported after the cut selects a name: parsed ahead, kept",
			pleg: `package pleg

import (
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/cri-api/pkg/later"
)

func stopped(r *runtimeapi.Response) bool { return later.Deep(nil) == nil && r != nil }
`,
			wantCut: []string{"EventType_CREATED", "EventType_STOPPED", "EventType_name", "descriptor", "helper"},
		},
		{
			name: "a dot import: nothing is cut",
			pleg: `package pleg

import . "k8s.io/cri-api/pkg/apis/runtime/v1"

func stopped(r *Response) bool { return r.GetType() == EventType_STOPPED }
`,
			wantCut: []string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := fixtureTree(t, map[string]string{
				"staging/src/k8s.io/cri-api/go.mod":                        "module k8s.io/cri-api\n",
				"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.pb.go": apiLookalike,
				"staging/src/k8s.io/cri-api/pkg/later/later.go":            "package later\n\nimport v1 \"k8s.io/cri-api/pkg/apis/runtime/v1\"\n\nfunc Deep(u *v1.Unused) *v1.Deeper { return nil }\n",
				"pkg/kubelet/pleg/pleg.go":                                 tc.pleg,
				"pkg/features/features.go":                                 "package features\n",
			})
			res, cut, err := loadImports(context.Background(), tr, Imports{FromSource: isAPI, DeclarationsOnly: isAPI}, true, []string{"k8s.io/kubernetes/pkg/kubelet/pleg"})
			if err != nil {
				t.Fatal(err)
			}
			if cut {
				t.Fatal("the load says it cut too much")
			}
			var all []string
			seen := map[string]bool{}
			for _, p := range res.Packages {
				for _, e := range p.TypeErrors {
					all = append(all, p.PkgPath+": "+e.Msg)
				}
				for _, dep := range p.Imports {
					if !seen[dep.PkgPath] {
						seen[dep.PkgPath] = true
						for _, e := range dep.TypeErrors {
							all = append(all, dep.PkgPath+": "+e.Msg)
						}
						for _, d2 := range dep.Imports {
							for _, e := range d2.TypeErrors {
								all = append(all, d2.PkgPath+": "+e.Msg)
							}
						}
					}
				}
			}
			if len(all) > 0 {
				t.Fatalf("type errors after cutting:\n%s", strings.Join(all, "\n"))
			}
			{
				api := res.Packages[0].Imports["k8s.io/cri-api/pkg/apis/runtime/v1"]
				if api == nil {
					t.Fatal("the API was not loaded from source")
				}
				var got []string
				for _, n := range []string{"Deeper", "EventType", "EventType_CREATED", "EventType_STOPPED", "EventType_name", "Response", "Status", "Unused", "descriptor", "helper"} {
					if api.Types.Scope().Lookup(n) == nil {
						got = append(got, n)
					}
				}
				if strings.Join(got, ",") != strings.Join(tc.wantCut, ",") {
					t.Errorf("cut %v, want %v", got, tc.wantCut)
				}
			}
		})
	}
}

// Cutting never changes what the requested package's code means: for API
// shapes where what is reached is not what is named (methods declared on
// an alias, promoted through embedding, of generic types; iota groups),
// the requested package type-checks the same, every expression with the
// same type, cut and uncut.
func TestCuttingChangesNoType(t *testing.T) {
	isAPI := func(p string) bool { return strings.HasPrefix(p, "k8s.io/cri-api/") }
	for _, tc := range []struct{ name, api, pleg string }{
		{"a method declared on an alias", `package v1
type impl struct{}
type Alias = impl
func (Alias) M() {}
type I interface{ M() }
func New() *impl { return nil }
`, `package pleg
import v1 "k8s.io/cri-api/pkg/apis/runtime/v1"
var _ v1.I = v1.New()
`},
		{"an alias chain to a pointer", `package v1
type impl struct{}
type A = impl
type B = *A
func (B) M() {}
type I interface{ M() }
func New() *impl { return nil }
`, `package pleg
import v1 "k8s.io/cri-api/pkg/apis/runtime/v1"
var _ v1.I = v1.New()
`},
		{"methods promoted through embedding", `package v1
type inner struct{}
func (*inner) Get() string { return "" }
type Outer struct{ *inner; N int }
`, `package pleg
import v1 "k8s.io/cri-api/pkg/apis/runtime/v1"
func get(o *v1.Outer) string { return o.Get() + string(rune(o.N)) }
`},
		{"a generic type's methods", `package v1
type Box[T any] struct{ v T }
func (b Box[T]) Get() T { return b.v }
type Events = Box[int]
`, `package pleg
import v1 "k8s.io/cri-api/pkg/apis/runtime/v1"
func get(b v1.Events) int { return b.Get() }
`},
		{"a method only an interface of the importer names", `package v1
type Msg struct{ n int }
func (m *Msg) Size() int { return m.n }
func (m *Msg) Reset() {}
func New() *Msg { return nil }
`, `package pleg
import v1 "k8s.io/cri-api/pkg/apis/runtime/v1"
type sizer interface{ Size() int }
var _ sizer = v1.New()
`},
		{"a method of a model's interface, and error's", `package v1
import "k8s.io/component-base/featuregate"
type Msg struct{}
func (*Msg) Enabled(featuregate.Feature) bool { return false }
func (*Msg) KnownFeatures() []string { return nil }
func (*Msg) Error() string { return "" }
func New() *Msg { return nil }
`, `package pleg
import (
	"k8s.io/component-base/featuregate"
	v1 "k8s.io/cri-api/pkg/apis/runtime/v1"
)
var _ error = v1.New()
var _ = func(m *v1.Msg) featuregate.FeatureGate { return m }
`},
		{"an iota group reached by its last name", `package v1
type Kind int
const (
	A Kind = iota
	B
	C
)
`, `package pleg
import v1 "k8s.io/cri-api/pkg/apis/runtime/v1"
const third = v1.C
var _ [2]int = [third]int{}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := fixtureTree(t, map[string]string{
				"staging/src/k8s.io/cri-api/go.mod":                        "module k8s.io/cri-api\n",
				"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.pb.go": tc.api,
				"pkg/kubelet/pleg/pleg.go":                                 tc.pleg,
				"pkg/features/features.go":                                 "package features\n",
			})
			types := func(cut bool) ([]string, []string) {
				res, _, err := loadImports(context.Background(), tr, Imports{FromSource: isAPI, DeclarationsOnly: isAPI}, cut, []string{"k8s.io/kubernetes/pkg/kubelet/pleg"})
				if err != nil {
					t.Fatal(err)
				}
				p := res.Packages[0]
				var errs, exprs []string
				for _, e := range p.TypeErrors {
					errs = append(errs, e.Msg)
				}
				for e, tv := range p.TypesInfo.Types {
					exprs = append(exprs, fmt.Sprintf("%d %s", e.Pos(), tv.Type))
				}
				sort.Strings(exprs)
				return errs, exprs
			}
			uncutErrs, uncut := types(false)
			if len(uncutErrs) > 0 {
				t.Fatalf("the fixture does not type-check uncut: %v", uncutErrs)
			}
			cutErrs, cut := types(true)
			if len(cutErrs) > 0 {
				t.Errorf("cut, the requested package has type errors: %v", cutErrs)
			}
			if strings.Join(cut, "\n") != strings.Join(uncut, "\n") {
				t.Errorf("cut, expressions are typed\n%s\nuncut\n%s", strings.Join(cut, "\n"), strings.Join(uncut, "\n"))
			}
		})
	}
}

// A package imported after the cut (the CRI client runtimehang reads, in
// a kubelet's load) is parsed ahead of it, so the cut keeps what it
// selects and the load runs once: each package parsed and type-checked
// once (issue 43: the report's load of a v1.37.2 checkout type-checked
// its 17 packages twice). Work is counted, not timed; not parallel.
func TestCutLoadRunsOnce(t *testing.T) {
	isAPI := func(p string) bool { return strings.HasPrefix(p, "k8s.io/cri-api/") }
	tr := fixtureTree(t, map[string]string{
		"staging/src/k8s.io/cri-api/go.mod":                        "module k8s.io/cri-api\n",
		"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.pb.go": apiLookalike,
		"staging/src/k8s.io/cri-api/pkg/later/later.go":            "package later\n\nimport v1 \"k8s.io/cri-api/pkg/apis/runtime/v1\"\n\nfunc Deep(u *v1.Unused) *v1.Deeper { return nil }\n",
		"staging/src/k8s.io/cri-api/pkg/later/later2.go":           "package later\n\nimport \"k8s.io/cri-api/pkg/deeper\"\n\nvar _ = deeper.X\n",
		"staging/src/k8s.io/cri-api/pkg/deeper/deeper.go":          "package deeper\n\nimport v1 \"k8s.io/cri-api/pkg/apis/runtime/v1\"\n\nvar X = v1.EventType_name\n",
		"pkg/features/features.go":                                 "package features\n",
		"pkg/kubelet/pleg/pleg.go": `package pleg

import (
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/cri-api/pkg/later"
)

func stopped(r *runtimeapi.Response) bool { return later.Deep(nil) == nil && r != nil }
`,
	})
	before := workcount.Read()
	res, err := LoadImports(context.Background(), tr, Imports{FromSource: isAPI, DeclarationsOnly: isAPI}, "k8s.io/kubernetes/pkg/kubelet/pleg")
	if err != nil {
		t.Fatal(err)
	}
	// pleg, the API, later and deeper (imported by later, two imports
	// after the cut): 4 packages, 5 files.
	w := workcount.Read().Since(before)
	if got, want := (workcount.Counts{FilesParsed: w.FilesParsed, PackagesChecked: w.PackagesChecked}), (workcount.Counts{FilesParsed: 5, PackagesChecked: 4}); got != want {
		t.Errorf("LoadImports: %+v, want %+v (each package once)", got, want)
	}
	var errs []string
	packages.Visit(res.Packages, nil, func(p *packages.Package) {
		for _, e := range p.TypeErrors {
			errs = append(errs, p.PkgPath+": "+e.Msg)
		}
	})
	if len(errs) > 0 {
		t.Errorf("type errors after cutting:\n%s", strings.Join(errs, "\n"))
	}
	api := res.Packages[0].Imports["k8s.io/cri-api/pkg/apis/runtime/v1"]
	if api == nil {
		t.Fatal("the API was not loaded from source")
	}
	for _, n := range []string{"Unused", "Deeper", "EventType_name"} {
		if api.Types.Scope().Lookup(n) == nil {
			t.Errorf("%s, selected by a package imported after the cut, was cut", n)
		}
	}
	if api.Types.Scope().Lookup("helper") != nil {
		t.Error("helper, which nothing reaches, was not cut")
	}
}

// The safety net behind parsing ahead: a loaded package that selects a
// cut name (or dot-imports the cut package), or names a method cut from a
// kept type, makes the load say it cut too much, and LoadImports then
// loads again uncut.
func TestCutTooMuch(t *testing.T) {
	parse := func(src string) *ast.File {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const api = "k8s.io/cri-api/pkg/apis/runtime/v1"
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"package a\nimport v1 \"" + api + "\"\nvar _ = v1.Unused{}\n", true},
		{"package a\nimport v1 \"" + api + "\"\nvar _ = v1.Response{}\n", false},
		{"package a\nimport . \"" + api + "\"\nvar _ = Response{}\n", true},
		{"package a\nimport other \"" + api + "\"\nvar _ = v1.Unused{}\n", false},
		// Reset, a method of a kept type, was cut.
		{"package a\nimport v1 \"" + api + "\"\nfunc f(r *v1.Response) { r.Reset() }\n", true},
		{"package a\ntype resetter interface{ Reset() }\n", true},
		{"package a\nimport v1 \"" + api + "\"\nfunc f(r *v1.Response) { r.Get() }\n", false},
	} {
		l := &loader{
			sels:       map[*ast.File]map[string]map[string]bool{},
			ahead:      map[string]*aheadPkg{},
			cutNames:   map[string]map[string]bool{api: {"Unused": true}},
			cutMethods: map[string]map[string]bool{api: {"Reset": true}},
			parsed: map[string]*parsedPkg{
				api: {name: "v1"},
				"a": {name: "a", files: []*ast.File{parse(tc.src)}},
			},
		}
		if got := l.cutTooMuch(); got != tc.want {
			t.Errorf("cutTooMuch with\n%s= %v, want %v", tc.src, got, tc.want)
		}
	}
}

// A declarations-only import is parsed without its function bodies and
// type-checked with the declarations its importers reach, its types'
// unused methods cut (issue 43: on v1.37.2 the CRI API's api.pb.go was
// parsed with its 1,400 method bodies and checked with every method).
// Work is counted, not timed; not parallel.
func TestDeclarationsOnlyImportIsReadLean(t *testing.T) {
	isAPI := func(p string) bool { return strings.HasPrefix(p, "k8s.io/cri-api/") }
	tr := fixtureTree(t, map[string]string{
		"staging/src/k8s.io/cri-api/go.mod": "module k8s.io/cri-api\n",
		"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.pb.go": `package v1

type Sandbox struct {
	Id    string
	Ready bool
}

func (s *Sandbox) GetId() string {
	if s == nil {
		return ""
	}
	return s.Id
}

func (s *Sandbox) GetReady() bool {
	if s == nil {
		return false
	}
	return s.Ready
}

func (s *Sandbox) Reset() { *s = Sandbox{} }

func (s *Sandbox) String() string { return "sandbox " + s.Id }

func (*Sandbox) ProtoMessage() {}

type Unreached struct{}

func (*Unreached) Reset() {}
`,
		"pkg/features/features.go": "package features\n",
		"pkg/kubelet/pleg/pleg.go": `package pleg

import runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

func sandboxID(s *runtimeapi.Sandbox) string {
	return s.GetId()
}
`,
	})
	before := workcount.Read()
	res, err := LoadImports(context.Background(), tr, Imports{FromSource: isAPI, DeclarationsOnly: isAPI}, "k8s.io/kubernetes/pkg/kubelet/pleg")
	if err != nil {
		t.Fatal(err)
	}
	w := workcount.Read().Since(before)
	// Bodies: sandboxID's (pleg is requested, read whole); none of the
	// API's. Declarations: pleg's import and sandboxID; the API's Sandbox
	// and GetId, the one method selected. The code before counted 5
	// bodies and 8 declarations (every method of Sandbox).
	if got, want := w, (workcount.Counts{FilesParsed: 2, BodiesParsed: 1, PackagesChecked: 2, DeclsChecked: 4}); got != want {
		t.Errorf("LoadImports: %+v, want %+v", got, want)
	}
	if errs := res.Packages[0].TypeErrors; len(errs) > 0 {
		t.Errorf("type errors: %v", errs)
	}
}
