package srcload

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
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
		// cutNames are the names the kept load has cut from the API
		// (nil: the load ran uncut).
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
			name: "a package parsed after the cut selects a cut name: loaded again uncut",
			pleg: `package pleg

import (
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/cri-api/pkg/later"
)

func stopped(r *runtimeapi.Response) bool { return later.Deep(nil) == nil && r != nil }
`,
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
			if tc.wantCut == nil {
				if !cut {
					t.Fatal("the load cut a name a package selects, and did not say so")
				}
				// LoadImports loads again uncut.
				if res, err = LoadImports(context.Background(), tr, Imports{FromSource: isAPI, DeclarationsOnly: isAPI}, "k8s.io/kubernetes/pkg/kubelet/pleg"); err != nil {
					t.Fatal(err)
				}
			} else if cut {
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
			if tc.wantCut != nil {
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
