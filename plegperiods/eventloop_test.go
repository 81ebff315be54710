package plegperiods_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/testkit/fixturetypes"
	"github.com/plegvet/plegvet/plegperiods"
	"github.com/plegvet/plegvet/srcpos"
)

// loopPrelude is a fork's pleg package without the evented PLEG's Start:
// a generic PLEG that writes a pod store, sends lifecycle events and
// queues relist requests behind a gate (RequestRelist) beside a method
// that relists at once (Relist, not a request).
const loopPrelude = `package pleg

import (
	"errors"
	"log"
	"time"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"kubeletforks/relisttrigger/cri"
	"kubeletforks/relisttrigger/podcache"
)

var _, _ = log.Printf, errors.New

type RelistDuration struct{ RelistPeriod, RelistThreshold time.Duration }

type PodLifecycleEvent struct{ PodID string }

type Generator interface {
	Start()
	Watch() chan *PodLifecycleEvent
	RequestRelist(podID string)
	Update(d *RelistDuration)
}

type gauge struct{}

func (gauge) Set(v float64) {}

type GenericPLEG struct {
	events         chan *PodLifecycleEvent
	relistDuration *RelistDuration
	pods           *podcache.Store
	asked          chan string
}

func NewGenericPLEG(events chan *PodLifecycleEvent, d *RelistDuration, pods *podcache.Store) Generator {
	return &GenericPLEG{events: events, relistDuration: d, pods: pods}
}

func (g *GenericPLEG) Start() {
	t := time.NewTimer(0)
	for {
		select {
		case <-t.C:
			t.Reset(g.relistDuration.RelistPeriod)
		case id := <-g.asked:
			if g.pods.Set(id, "seen") {
				g.events <- &PodLifecycleEvent{PodID: id}
			}
		}
	}
}

func (g *GenericPLEG) Watch() chan *PodLifecycleEvent { return g.events }
func (g *GenericPLEG) Update(d *RelistDuration)       { g.relistDuration = d }
func (g *GenericPLEG) Relist()                        { g.events <- &PodLifecycleEvent{} }

func (g *GenericPLEG) RequestRelist(podID string) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.RelistOnDemand) {
		return
	}
	g.asked <- podID
}

type EventedPLEG struct {
	runtime  cri.RuntimeService
	generic  Generator
	concrete *GenericPLEG
	pods     *podcache.Store
	seen     gauge
	events   chan *PodLifecycleEvent
	retries  int
	fallback *RelistDuration
}

func NewEventedPLEG(runtime cri.RuntimeService, generic Generator, retries int, fallback *RelistDuration) Generator {
	return &EventedPLEG{runtime: runtime, generic: generic, retries: retries, fallback: fallback}
}

func (e *EventedPLEG) Watch() chan *PodLifecycleEvent        { return e.events }
func (e *EventedPLEG) RequestRelist(podID string)            { e.generic.RequestRelist(podID) }
func (e *EventedPLEG) Update(d *RelistDuration)              { e.generic.Update(d) }
func (e *EventedPLEG) stream(ch chan *cri.ContainerEvent) error { return e.runtime.GetContainerEvents(ch) }
`

// eventLoop type-checks a pleg package, the prelude (or none) and src,
// and reads its evented constructor's event loop.
func eventLoop(t *testing.T, prelude, src string, stub bool) (*plegperiods.EventLoop, int) {
	t.Helper()
	fset := token.NewFileSet()
	im := fixturetypes.NewImporter(fset, filepath.Join("..", "testdata", "src"))
	im.StubUnknown = stub
	f, info, _, err := im.Check("fork/pkg/kubelet/pleg", prelude+src)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range plegperiods.Constructors(fset, []*ast.File{f}, info) {
		if c.Kind == plegperiods.Evented {
			return c.EventLoop, strings.Count(prelude, "\n")
		}
	}
	t.Fatal("no evented constructor")
	return nil, 0
}

// loopSummary is "role=relist-trigger emits=- cache=- relist=4[STOPPED]:RelistOnDemand failure=stop-watching@6",
// lines counted from the case's first line.
func loopSummary(l *plegperiods.EventLoop, offset int) string {
	line := func(p *srcpos.Pos) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(p.Line - offset)
	}
	role, why := l.Role, l.Why
	s := fmt.Sprintf("role=%s emits=%s cache=%s", role, line(l.EmitsLifecycleEvents), line(l.UpdatesPodCache))
	if q := l.RequestsRelist; q != nil {
		s += fmt.Sprintf(" relist=%s%v", line(&q.Pos), q.EventTypes)
		if q.Gate != nil {
			s += ":" + *q.Gate
		}
		if q.GateUnresolved != "" {
			s += ":?" + q.GateUnresolved
		}
	} else {
		s += " relist=-"
	}
	f := l.OnStreamFailure
	s += " failure=" + f.Action
	if f.Pos != nil {
		s += "@" + line(f.Pos)
	}
	if f.Why != "" {
		s += " (" + f.Why + ")"
	}
	if why != "" {
		s += " why: " + why
	}
	return s
}

func TestEventLoop(t *testing.T) {
	const noRetries = " failure=unknown (no comparison of a failed-stream count with a retries field of the evented PLEG was found)"
	tests := []struct {
		name, src, want string
	}{{
		name: "an event source: sends through a helper, writes the pod store",
		src: `
func (e *EventedPLEG) Start() { go e.loop() }
func (e *EventedPLEG) loop() {
	for ev := range make(chan *cri.ContainerEvent) {
		e.seen.Set(1)
		if e.pods.Set(ev.PodID, "running") {
			e.emit(&PodLifecycleEvent{PodID: ev.PodID})
		}
	}
}
func (e *EventedPLEG) emit(ev *PodLifecycleEvent) { e.events <- ev }
`,
		want: "role=event-source emits=11 cache=6 relist=-" + noRetries,
	}, {
		name: "a trigger: == ... { continue } lets every other type through",
		src: `
func (e *EventedPLEG) Start() {
	go func() {
		for ev := range make(chan *cri.ContainerEvent) {
			if ev.ContainerEventType == cri.ContainerEventType_CONTAINER_CREATED_EVENT {
				continue
			}
			e.generic.RequestRelist(ev.PodID)
		}
	}()
}
`,
		want: "role=relist-trigger emits=- cache=- relist=8[CONTAINER_STARTED_EVENT CONTAINER_STOPPED_EVENT CONTAINER_DELETED_EVENT]:RelistOnDemand" + noRetries,
	}, {
		name: "an enclosing if with ||, through the evented PLEG's own method",
		src: `
func (e *EventedPLEG) Start() { go e.loop() }
func (e *EventedPLEG) loop() {
	for ev := range make(chan *cri.ContainerEvent) {
		if ev.ContainerEventType == cri.ContainerEventType_CONTAINER_STOPPED_EVENT || cri.ContainerEventType_CONTAINER_DELETED_EVENT == ev.ContainerEventType {
			e.RequestRelist(ev.PodID)
		}
	}
}
`,
		want: "role=relist-trigger emits=- cache=- relist=-2[CONTAINER_STOPPED_EVENT CONTAINER_DELETED_EVENT]:RelistOnDemand" + noRetries,
	}, {
		name: "switch cases, the default taking the rest; the concrete generic PLEG",
		src: `
func (e *EventedPLEG) Start() { go e.loop() }
func (e *EventedPLEG) loop() {
	for ev := range make(chan *cri.ContainerEvent) {
		switch ev.ContainerEventType {
		case cri.ContainerEventType_CONTAINER_CREATED_EVENT, cri.ContainerEventType_CONTAINER_STARTED_EVENT:
			log.Print("started")
		default:
			e.concrete.RequestRelist(ev.PodID)
		}
	}
}
`,
		want: "role=relist-trigger emits=- cache=- relist=9[CONTAINER_STOPPED_EVENT CONTAINER_DELETED_EVENT]:RelistOnDemand" + noRetries,
	}, {
		name: "a test of something else is no guard",
		src: `
func (e *EventedPLEG) Start() { go e.loop() }
func (e *EventedPLEG) loop() {
	for ev := range make(chan *cri.ContainerEvent) {
		if ev.PodID == "" {
			continue
		}
		e.generic.RequestRelist(ev.PodID)
	}
}
`,
		want: "role=relist-trigger emits=- cache=- relist=8[all]:RelistOnDemand" + noRetries,
	}, {
		name: "a method that relists at once is no request; a request never reached from Start is none",
		src: `
func (e *EventedPLEG) Start() {
	for range make(chan *cri.ContainerEvent) {
		e.concrete.Relist()
	}
}
func (e *EventedPLEG) unused() { e.generic.RequestRelist("x") }
`,
		want: "role=unknown emits=- cache=- relist=-" + noRetries + " why: its event loop (EventedPLEG.Start) sends no *pleg.PodLifecycleEvent and asks the generic PLEG for no relist",
	}, {
		name: "method values and package functions lead on; restore after retries",
		src: `
func (e *EventedPLEG) Start() { go until(e.watch) }
func until(f func()) { f() }
func (e *EventedPLEG) watch() {
	ch := make(chan *cri.ContainerEvent)
	for failed := 0; ; failed++ {
		if failed >= e.retries {
			e.Update(e.fallback)
			return
		}
		_ = e.stream(ch)
	}
}
`,
		want: "role=unknown emits=- cache=- relist=- failure=restore-generic-relist@8 why: its event loop (EventedPLEG.Start, until, EventedPLEG.watch, EventedPLEG.Update, EventedPLEG.stream) sends no *pleg.PodLifecycleEvent and asks the generic PLEG for no relist",
	}, {
		name: "retries < count written the other way: stop in the else branch",
		src: `
func (e *EventedPLEG) Start() {
	for failed := 0; ; failed++ {
		if failed < e.retries {
			e.events <- &PodLifecycleEvent{}
		} else {
			log.Print("giving up")
			return
		}
	}
}
`,
		want: "role=event-source emits=5 cache=- relist=- failure=stop-watching@8",
	}, {
		name: "a loop while retries remain, then the function ends",
		src: `
func (e *EventedPLEG) Start() {
	go func() {
		for failed := 0; failed < e.retries; failed++ {
			_ = e.stream(nil)
		}
	}()
}
`,
		want: "role=unknown emits=- cache=- relist=- failure=stop-watching@7 why: its event loop (EventedPLEG.Start, EventedPLEG.stream) sends no *pleg.PodLifecycleEvent and asks the generic PLEG for no relist",
	}, {
		name: "a branch that only logs",
		src: `
func (e *EventedPLEG) Start() {
	for failed := 0; ; failed++ {
		if failed >= e.retries {
			log.Print("streams keep failing")
		}
		e.events <- nil
	}
}
`,
		want: "role=event-source emits=7 cache=- relist=- failure=unknown (what runs once the retries are spent neither hands a relist duration to the generic PLEG nor returns)",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, offset := eventLoop(t, loopPrelude, tc.src, false)
			if got := loopSummary(l, offset); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// With the callee's gate inverted, or a test that cannot be followed.
func TestEventLoopCalleeGate(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"if !utilfeature.DefaultFeatureGate.Enabled(features.RelistOnDemand) {", "if utilfeature.DefaultFeatureGate.Enabled(features.RelistOnDemand) {", ":!RelistOnDemand"},
		{"if !utilfeature.DefaultFeatureGate.Enabled(features.RelistOnDemand) {", "if !podcache.New().Set(podID, \"\") {", ":?podcache.New().Set(podID, \"\") (must hold): podcache.New().Set(podID, \"\") calls Set of package kubeletforks/relisttrigger/podcache, whose body plegvet does not read here"},
		{"if !utilfeature.DefaultFeatureGate.Enabled(features.RelistOnDemand) {\n\t\treturn\n\t}\n", "", ""},
	} {
		prelude := strings.Replace(loopPrelude, tc.from, tc.to, 1)
		if prelude == loopPrelude {
			t.Fatalf("%q is not in the prelude", tc.from)
		}
		l, offset := eventLoop(t, prelude, `
func (e *EventedPLEG) Start() { e.generic.RequestRelist("") }
`, false)
		want := "role=relist-trigger emits=- cache=- relist=2[all]" + tc.want
		if got := loopSummary(l, offset); !strings.HasPrefix(got, want+" ") {
			t.Errorf("\n got %s\nwant %s ...", got, want)
		}
	}
}

// Imports that were stubbed (a tree loaded from source): the pod cache is
// known by its field's declared type, the event type by the constant's
// name; the lifecycle event type by the constructor's interface.
func TestEventLoopStubbed(t *testing.T) {
	src := `package pleg

import (
	kubecontainer "example.com/fork/pkg/kubelet/container"
	runtimeapi "example.com/cri-api/runtime/v1"
)

type PodLifecycleEvent struct{ ID string }

type PLEG interface {
	Start()
	Watch() chan *PodLifecycleEvent
}

type EventedPLEG struct {
	runtime runtimeapi.RuntimeService
	cache   kubecontainer.Cache
	events  chan *PodLifecycleEvent
}

func NewEventedPLEG(runtime runtimeapi.RuntimeService, cache kubecontainer.Cache) PLEG {
	return &EventedPLEG{runtime: runtime, cache: cache}
}

func (e *EventedPLEG) Watch() chan *PodLifecycleEvent { return e.events }

func (e *EventedPLEG) Start() {
	ch := make(chan *runtimeapi.ContainerEventResponse)
	go e.runtime.GetContainerEvents(ch)
	for ev := range ch {
		if ev.ContainerEventType != runtimeapi.ContainerEventType_CONTAINER_DELETED_EVENT {
			e.cache.Set(ev.ID, nil)
		}
		e.events <- &PodLifecycleEvent{ID: ev.ID}
	}
}
`
	l, _ := eventLoop(t, "", src, true)
	if got, want := loopSummary(l, 0), "role=event-source emits=34 cache=32 relist=-"+" failure=unknown (no comparison of a failed-stream count with a retries field of the evented PLEG was found)"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

// relistSummary is "relist=6 stream=5 callee=GenericPLEG.Relist cache=+2 emits=+3"
// for the relist forced on a stream error (lines of the case counted from
// its first line; cache and emits relative to the prelude's relist), or
// "relist=-".
func relistSummary(l *plegperiods.EventLoop, offset, relistLine int) string {
	f := l.RelistOnStreamError
	if f == nil {
		return "relist=-"
	}
	rel := func(p *srcpos.Pos) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%+d", p.Line-relistLine)
	}
	return fmt.Sprintf("relist=%d stream=%d callee=%s decl=%s cache=%s emits=%s", f.Pos.Line-offset, f.Stream.Line-offset, f.Relist, rel(&f.RelistDecl), rel(&f.UpdatesPodCache), rel(f.EmitsLifecycleEvents))
}

// The relist forced on a stream error: a call, in the branch run when a
// stream call's error is set, that runs a method of the generic PLEG
// writing the pod cache before it returns. Recognised by type (directly,
// through an interface the generic PLEG implements, through the evented
// PLEG's own methods), never by the callee's name.
func TestEventLoopRelistOnStreamError(t *testing.T) {
	// A generic PLEG whose relist (named otherwise) writes the pod store
	// through a helper, then sends events; Relist still only sends.
	const relisting = `func (g *GenericPLEG) Relist()                        { g.events <- &PodLifecycleEvent{} }
func (g *GenericPLEG) resync() {
	g.note("all")
}
func (g *GenericPLEG) note(id string) {
	if g.pods.Set(id, "seen") {
		g.events <- &PodLifecycleEvent{PodID: id}
	}
}
`
	prelude := strings.Replace(loopPrelude, "func (g *GenericPLEG) Relist()                        { g.events <- &PodLifecycleEvent{} }\n", relisting, 1)
	if prelude == loopPrelude {
		t.Fatal("the prelude has no Relist line to replace")
	}
	resync := 0 // the line declaring resync in the prelude
	for i, line := range strings.Split(prelude, "\n") {
		if strings.HasPrefix(line, "func (g *GenericPLEG) resync()") {
			resync = i + 1
		}
	}
	const hands = `
type resyncer interface{ resync() }
`
	tests := []struct {
		name, src, want string
	}{{
		name: "if err != nil after the stream call, through the evented PLEG's method and an interface",
		src: hands + `
func (e *EventedPLEG) Start() { go e.watch() }
func (e *EventedPLEG) resync() { e.generic.(resyncer).resync() }
func (e *EventedPLEG) watch() {
	for {
		err := e.runtime.GetContainerEvents(nil)
		if err != nil {
			log.Print(err)
			e.Update(e.fallback)
			e.resync()
		}
	}
}
`,
		want: "relist=12 stream=8 callee=GenericPLEG.resync decl=+0 cache=+4 emits=+5",
	}, {
		name: "if err := ...; err == nil { } else { }, the concrete generic PLEG, a wrapped stream call",
		src: `
func (e *EventedPLEG) Start() {
	go func() {
		for {
			if err := e.stream(nil); err == nil {
				e.concrete.resync()
			} else {
				e.concrete.resync()
			}
		}
	}()
}
`,
		want: "relist=8 stream=5 callee=GenericPLEG.resync decl=+0 cache=+4 emits=+5",
	}, {
		name: "a relist outside the error branch, a relist in a goroutine, and an error not of a stream",
		src: `
func (e *EventedPLEG) Start() {
	err := e.runtime.GetContainerEvents(nil)
	e.concrete.resync()
	if err != nil {
		go e.concrete.resync()
	}
	other := errors.New("x")
	if other != nil {
		e.concrete.resync()
	}
}
`,
		want: "relist=-",
	}, {
		name: "a method that does not write the pod cache, and a relist request, are no forced relist",
		src: `
func (e *EventedPLEG) Start() {
	if err := e.runtime.GetContainerEvents(nil); err != nil {
		e.concrete.Relist()
		e.generic.RequestRelist("")
		e.generic.Update(e.fallback)
	}
}
`,
		want: "relist=-",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, offset := eventLoop(t, prelude, tc.src, false)
			if got := relistSummary(l, offset, resync); got != tc.want {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}
