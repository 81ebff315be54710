package plegvet_test

import (
	"bufio"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
)

// TestEventedRoleOnReleases: each release's evented PLEG is described by
// what its code does. Each position must point at a line of the release's
// source that does what the field says (read here independently: a send,
// a cache write, a relist request, a health check), so a wrong position
// cannot pass.
func TestEventedRoleOnReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	tests := []struct {
		version, role, action string
		health                bool
		relist                []string // event types reaching the relist request
		gate                  string   // the gate on the relist request
		dependsOn             []string
	}{
		{"v1.26.15", "event-source", "restore-generic-relist", true, nil, "", nil},
		{"v1.30.14", "event-source", "restore-generic-relist", true, nil, "", nil},
		{"v1.36.1", "event-source", "restore-generic-relist", true, nil, "", nil},
		{"v1.36.5", "event-source", "restore-generic-relist", true, nil, "", nil},
		{"v1.37.2", "relist-trigger", "stop-watching", false, []string{"CONTAINER_STOPPED_EVENT"}, "PLEGOnDemandRelist", []string{"PLEGOnDemandRelist"}},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			rep, err := plegvet.Inspect(context.Background(), plegvet.Options{Kubernetes: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			e := rep.EventedPLEG
			if e == nil {
				t.Fatal("no eventedPLEG")
			}
			if string(e.Role) != tc.role || e.OnStreamFailure.Action != tc.action || e.Why == "" {
				t.Errorf("role %q, on stream failure %q, why %q; want %q, %q", e.Role, e.OnStreamFailure.Action, e.Why, tc.role, tc.action)
			}
			dir := moduleDir(t, "k8s.io/kubernetes@"+tc.version)
			lineHas(t, dir, &e.Constructed, "NewEventedPLEG(")
			if tc.role == "event-source" {
				lineHas(t, dir, e.EmitsLifecycleEvents, "<-")
				lineHas(t, dir, e.UpdatesPodCache, ".Set(")
				if e.RequestsRelist != nil {
					t.Errorf("an event source requesting relists: %+v", e.RequestsRelist)
				}
			} else if e.EmitsLifecycleEvents != nil || e.UpdatesPodCache != nil {
				t.Errorf("a relist trigger that emits events (%v) or writes the cache (%v)", e.EmitsLifecycleEvents, e.UpdatesPodCache)
			}
			if tc.relist != nil {
				r := e.RequestsRelist
				if r == nil || strings.Join(r.EventTypes, ",") != strings.Join(tc.relist, ",") || r.Gate == nil || *r.Gate != tc.gate {
					t.Fatalf("relist request %+v; want event types %v, gate %s", r, tc.relist, tc.gate)
				}
				lineHas(t, dir, &r.Pos, "RequestRelist(")
			}
			if (e.HealthCheck != nil) != tc.health {
				t.Errorf("health check %+v; want one: %t", e.HealthCheck, tc.health)
			} else if e.HealthCheck != nil {
				lineHas(t, dir, &e.HealthCheck.Pos, `addHealthCheck("EventedPLEG"`)
			}
			if a := e.OnStreamFailure.After; a == nil || a.Value == nil || *a.Value != 5 {
				t.Errorf("retries before the stream is given up: %+v", a)
			}
			forcedRelistOnReleases(t, dir, rep)
			var deps []string
			for _, d := range rep.GateDependencies {
				deps = append(deps, d.Name)
				if d.Effective == nil || d.Decl == nil {
					t.Errorf("dependency %s without a spec or a declaration: %+v", d.Name, d)
				}
			}
			if strings.Join(deps, ",") != strings.Join(tc.dependsOn, ",") {
				t.Errorf("gate dependencies %v; want %v", deps, tc.dependsOn)
			}
		})
	}
}

// forcedRelistOnReleases checks the relist the evented PLEG forces when
// its stream call fails against the release's own evented.go, read here
// by syntax alone: the "if err != nil" after "err := ...GetContainerEvents(",
// and a call of a method named Relist in it. Then the summary must state
// that relist at its position, and never that the sync loop's ticks
// converge.
func forcedRelistOnReleases(t *testing.T, dir string, rep *answer.Report) {
	t.Helper()
	e := rep.EventedPLEG
	stream, relist := streamErrorRelist(t, filepath.Join(dir, "pkg", "kubelet", "pleg", "evented.go"))
	f := e.RelistOnStreamError
	if relist == 0 {
		if f != nil {
			t.Errorf("evented.go calls no Relist after a stream error; plegvet says %+v", f)
		}
		return
	}
	if f == nil {
		t.Fatalf("evented.go:%d runs Relist after the stream error of line %d; plegvet found no relist on a stream error", relist, stream)
	}
	if f.Pos.File != "pkg/kubelet/pleg/evented.go" || f.Pos.Line != relist || f.Stream.Line != stream {
		t.Errorf("relist on a stream error at %s:%d after the stream call of line %d; want evented.go:%d after line %d", f.Pos.File, f.Pos.Line, f.Stream.Line, relist, stream)
	}
	lineHas(t, dir, &f.Pos, "e.Relist()")
	lineHas(t, dir, &f.Stream, "GetContainerEvents(")
	lineHas(t, dir, &f.RelistDecl, "func (g *GenericPLEG) Relist()")
	lineHas(t, dir, &f.UpdatesPodCache, "g.cache.Set(")
	lineHas(t, dir, f.EmitsLifecycleEvents, "g.eventChannel <-")
	if f.Relist != "GenericPLEG.Relist" || f.UpdatesPodCache.File != "pkg/kubelet/pleg/generic.go" {
		t.Errorf("relist %s, writing the pod cache at %s", f.Relist, f.UpdatesPodCache.File)
	}
	want := fmt.Sprintf("runs GenericPLEG.Relist at once (pkg/kubelet/pleg/evented.go:%d); that relist writes the pod cache (pkg/kubelet/pleg/generic.go:%d)", relist, f.UpdatesPodCache.Line)
	if !strings.Contains(rep.Summary, want) {
		t.Errorf("summary lacks %q:\n%s", want, rep.Summary)
	}
	for _, not := range []string{"convergence", "resync"} {
		if strings.Contains(rep.Summary, not) {
			t.Errorf("summary says %q, which the code does not show:\n%s", not, rep.Summary)
		}
	}
}

// streamErrorRelist reads, by syntax, the line of "err := ....GetContainerEvents("
// whose "if err != nil" calls a method named Relist, and that call's line;
// 0, 0 when there is none.
func streamErrorRelist(t *testing.T, file string) (stream, relist int) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		b, ok := n.(*ast.BlockStmt)
		if !ok || relist != 0 {
			return relist == 0
		}
		for i, st := range b.List {
			as, ok := st.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 || i+1 == len(b.List) {
				continue
			}
			call, ok := as.Rhs[0].(*ast.CallExpr)
			if !ok {
				continue
			}
			if s, ok := call.Fun.(*ast.SelectorExpr); !ok || s.Sel.Name != "GetContainerEvents" {
				continue
			}
			ifs, ok := b.List[i+1].(*ast.IfStmt)
			if !ok || types.ExprString(ifs.Cond) != types.ExprString(as.Lhs[len(as.Lhs)-1])+" != nil" {
				continue
			}
			ast.Inspect(ifs.Body, func(m ast.Node) bool {
				c, ok := m.(*ast.CallExpr)
				if !ok || relist != 0 {
					return relist == 0
				}
				if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Relist" {
					stream, relist = fset.Position(call.Pos()).Line, fset.Position(c.Pos()).Line
				}
				return relist == 0
			})
		}
		return relist == 0
	})
	return stream, relist
}

// moduleDir is a module's directory in the module cache, which Inspect
// filled.
func moduleDir(t *testing.T, modAtVersion string) string {
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		out, err := goEnv("GOMODCACHE")
		if err != nil {
			t.Fatal(err)
		}
		cache = out
	}
	return filepath.Join(cache, modAtVersion)
}

// lineHas requires the line at p to hold want.
func lineHas(t *testing.T, dir string, p *answer.Pos, want string) {
	t.Helper()
	if p == nil {
		t.Errorf("no position; want a line holding %q", want)
		return
	}
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(p.File)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if n == p.Line {
			if !strings.Contains(sc.Text(), want) {
				t.Errorf("%s:%d is %q; want a line holding %q", p.File, p.Line, strings.TrimSpace(sc.Text()), want)
			}
			return
		}
	}
	t.Errorf("%s has no line %d", p.File, p.Line)
}

func goEnv(key string) (string, error) {
	out, err := exec.Command("go", "env", key).Output()
	return strings.TrimSpace(string(out)), err
}
