package srcload

import (
	"context"
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
