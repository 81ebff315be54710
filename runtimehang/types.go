// Package runtimehang reads, from a kubelet's source, what a container
// runtime that hangs (every CRI call waits its whole deadline) does to the
// kubelet: which collectors registered on /metrics call the runtime while
// a scrape is served (so /metrics waits with them), the deadline each CRI
// call carries (the CRI client's timeout, runtimeRequestTimeout, and its
// default), the loop that asks the runtime's Status and the threshold past
// which the runtime is declared down, and the runtime call the node status
// update itself waits on (the Version the node status setters ask).
//
// It is pure: Extract reads typed syntax handed to it (pkg/kubelet and the
// packages read from source beside it) and does no I/O. Calls are
// followed by type: a static call to its declaration, a call through an
// interface to each type of the packages read that implements it, a
// collector's func or interface field to the value the kubelet registered
// it with. A call reaching a method of the CRI API's service interfaces
// (k8s.io/cri-api/pkg/apis) is a runtime call. A step whose body was not
// read is Unresolved, with why; nothing is found by a table of names or
// versions.
package runtimehang

import (
	"time"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/srcpos"
)

// Hang is what a hung container runtime does to the kubelet, read from
// its code.
type Hang struct {
	// Collectors are the collectors pkg/kubelet registers, sorted by
	// position, each with the runtime calls a scrape makes through it.
	Collectors []Collector `json:"collectors"`
	// StatsProviders are the stats providers the kubelet may build (the
	// one collectors list pods through), each with the condition it is
	// built under, sorted by position.
	StatsProviders []StatsProvider `json:"statsProviders"`
	// Deadline is the timeout the CRI client is built with: each call
	// waits at most that long; null when no CRI client construction was found.
	Deadline *Deadline `json:"deadline"`
	// StatusLoop is the loop asking the runtime's Status; null when not found.
	StatusLoop *StatusLoop `json:"statusLoop"`
	// RuntimeDown is the threshold past which the runtime is declared down
	// ("container runtime is down"), as the health rule read it; null when not found.
	RuntimeDown *constvalue.Value `json:"runtimeDown"`
	// NodeStatus is the runtime call the node status update waits on;
	// null when none was found.
	NodeStatus *NodeStatusCall `json:"nodeStatus"`
	// NodeStatusFrequency is how often the node status is updated: the
	// default of the configuration setting nodeStatusUpdateFrequency (a
	// node's configz overrides it); its Unresolved says why when not read.
	NodeStatusFrequency *constvalue.Value `json:"nodeStatusFrequency,omitempty"`
	// Relist is what one relist of the generic PLEG asks the runtime;
	// null when the PLEG's package was not read or no relist was found.
	Relist *Relist `json:"relist"`
	// Unknown says why the tree matches no known shape; "" when it does.
	Unknown string `json:"unknown,omitempty"`
	// Consequence is what the hang means for a node, in one sentence,
	// worded from the values above (the report fills it in).
	Consequence string `json:"consequence,omitempty"`
}

// Step is one call of a chain: the function called and where.
type Step struct {
	// Func is the function or method called (criStatsProvider.ListPodStats).
	Func string `json:"func"`
	// Pos is the call (or, for a collector's field, the registration
	// that gave it its value).
	Pos srcpos.Pos `json:"pos"`
	// Decl is the callee's declaration; null when its body was not read.
	Decl *srcpos.Pos `json:"decl"`
	// Via is the interface the call goes through ("" for a static call):
	// the step is then one of the interface's implementations.
	Via string `json:"via,omitempty"`
	// When is the branch of its caller's body the call runs under, as
	// written ("!(X)" for an else, or for the calls after "if X {
	// return }" when the if's body makes a call too); "" when none. Calls
	// under X and under !(X) are alternatives: one run makes one side's.
	When string `json:"when,omitempty"`
	// Bound is the timeout of the context the call is given, when its
	// caller derived it there with context.WithTimeout (the call, and
	// every call made on that context after it, end within it; the callee
	// is taken to pass the context on), resolved to a constant or not;
	// null when none.
	Bound *constvalue.Value `json:"bound,omitempty"`
	// Gate is the feature gate behind When, when its condition reads a
	// bool field (x.f or !x.f): followed from where the field is set to
	// the check giving it its value; null when When reads no such field.
	Gate *BranchGate `json:"gate,omitempty"`
}

// BranchGate is the feature gate a branch's field follows: the field is
// set from a constructor's parameter, which the constructor's callers
// (or the callers of those passing their own parameter on) give a check
// of the gate (DefaultFeatureGate.Enabled(features.X)), alone or as one
// side of an &&. The field then reads true only when the gate is on.
// A branch whose condition is the check itself (if !DefaultFeatureGate.
// Enabled(features.X)) is Exact: its field is the check, true exactly
// when the gate is on.
type BranchGate struct {
	// Field is the field as the condition reads it (p.podAndContainerStatsFromCRI),
	// or the check as written when Exact.
	Field string `json:"field"`
	Exact bool   `json:"exact,omitempty"`
	// FieldTrue: the step runs where the field reads true (its branch is
	// x.f, or the else of !x.f), so only when the gate is on; else where
	// it reads false.
	FieldTrue bool `json:"fieldTrue"`
	// Set is the value the field is given, as written, and SetPos where
	// (the composite literal's key or the assignment); "" and null when
	// nothing read sets it.
	Set    string      `json:"set,omitempty"`
	SetPos *srcpos.Pos `json:"setPos,omitempty"`
	// Name is the gate (the constant's value), Const its constant and Pos
	// the check; "" and null when Unresolved.
	Name  string      `json:"name,omitempty"`
	Const string      `json:"const,omitempty"`
	Pos   *srcpos.Pos `json:"pos,omitempty"`
	// Unresolved says why the field was not followed to one gate (it is
	// set from a variable, or from two different gates).
	Unresolved string `json:"unresolved,omitempty"`
}

// NeedsGate is the feature gate the step runs only when on: its branch
// reads its field true, and the field follows that gate; "" when none.
func (s Step) NeedsGate() string {
	if g := s.Gate; g != nil && g.FieldTrue && g.Unresolved == "" {
		return g.Name
	}
	return ""
}

// GateState is the feature gate the step's branch decides and the state
// (on or off) the step runs in: on where its field reads true; off where
// it reads false only when Exact (a field set from "G && other" reads
// false with G on too). ok is false when the branch decides no gate.
func (s Step) GateState() (name string, on, ok bool) {
	g := s.Gate
	if g == nil || g.Unresolved != "" || g.Name == "" || (!g.FieldTrue && !g.Exact) {
		return "", false, false
	}
	return g.Name, g.FieldTrue, true
}

// Collector is one collector registered, and what a scrape calls; or
// one HTTP handler installed, and what a request calls (Handler).
type Collector struct {
	// Constructor is the call building it, as written
	// (collectors.NewLogMetricsCollector).
	Constructor string      `json:"constructor"`
	Decl        *srcpos.Pos `json:"decl"` // the constructor's declaration
	// Register is the registering call as written (metrics.Register) and
	// Registered where the collector is passed to it.
	Register   string     `json:"register"`
	Registered srcpos.Pos `json:"registered"`
	// Endpoint is the endpoint whose scrape runs the collector ("/metrics":
	// the register function passes it to the legacy registry); "" with
	// EndpointUnknown saying why when not read.
	Endpoint        string `json:"endpoint"`
	EndpointUnknown string `json:"endpointUnknown,omitempty"`
	// When is the condition the registration runs under, as written
	// ("!X" for an else branch), WhenPos where; "" when unconditional.
	// Never: the condition is a constant false, so the collector is never
	// registered (and /metrics never waits on it).
	When    string      `json:"when,omitempty"`
	WhenPos *srcpos.Pos `json:"whenPos,omitempty"`
	Never   bool        `json:"never,omitempty"`
	// Handler: not a collector but an HTTP handler the kubelet's server
	// installs (/stats/summary); Constructor is then the function pairing
	// its path with the handler, Register the call installing what it
	// returns, and Collect the handler method each request runs.
	Handler bool `json:"handler,omitempty"`
	// Collect is the method each scrape calls.
	Collect *Step `json:"collect"`
	// Reaches are the runtime calls a scrape makes, sorted by provider
	// and method.
	Reaches []Reach `json:"reaches"`
	// Unresolved are the calls not followed, with why.
	Unresolved []Unresolved `json:"unresolved"`
}

// Reach is one runtime call a chain ends in.
type Reach struct {
	// Method is the CRI method called, with its interface
	// (RuntimeService.ListPodSandbox).
	Method string `json:"method"`
	// Provider is the implementation the chain's first interface call
	// chose (criStatsProvider); "" when it goes through none.
	Provider string `json:"provider,omitempty"`
	// Steps are the calls from the collector's Collect to the CRI call,
	// the last one being it.
	Steps []Step `json:"steps"`
	// Concurrent: a step runs in a goroutine its caller starts (a go
	// statement, an errgroup's or a WaitGroup's Go), beside the caller's
	// other calls; else each call waits for the one before.
	Concurrent bool `json:"concurrent,omitempty"`
}

// Unresolved is a call a chain could not follow.
type Unresolved struct {
	Step Step   `json:"step"`
	Why  string `json:"why"`
}

// StatsProvider is one stats provider the kubelet may build.
type StatsProvider struct {
	// Constructor is the call as written (stats.NewCRIStatsProvider).
	Constructor string      `json:"constructor"`
	Pos         srcpos.Pos  `json:"pos"`
	Decl        *srcpos.Pos `json:"decl"`
	// When is the condition it is built under as written ("!X" for an
	// else branch); "" when unconditional.
	When    string      `json:"when,omitempty"`
	WhenPos *srcpos.Pos `json:"whenPos,omitempty"`
	// WhenSet is what sets the condition's field, as written
	// (cadvisor.UsingLegacyCadvisorStats(kubeCfg.ContainerRuntimeEndpoint):
	// the runtime's endpoint decides), and WhenSetPos where; "" and null
	// when the condition is no field or nothing read assigns it.
	WhenSet    string      `json:"whenSet,omitempty"`
	WhenSetPos *srcpos.Pos `json:"whenSetPos,omitempty"`
	// Gates are the feature gates its arguments test (PodAndContainerStatsFromCRI).
	Gates []string `json:"gates"`
}

// Deadline is the timeout the CRI client is built with.
type Deadline struct {
	// Call is the CRI client's construction as written
	// (remote.NewRemoteRuntimeService), Pos the argument passing the timeout.
	Call string     `json:"call"`
	Pos  srcpos.Pos `json:"pos"`
	// Expr is the timeout as written (kubeCfg.RuntimeRequestTimeout.Duration).
	Expr string `json:"expr"`
	// Value is the timeout when it is a constant; else its Unresolved
	// says why (a configuration field).
	Value *constvalue.Value `json:"value"`
	// Setting is the configuration field the timeout comes from (its
	// JSON name, runtimeRequestTimeout); "" when none.
	Setting string `json:"setting,omitempty"`
	// Default is the setting's default, read from the configuration
	// defaults; its Unresolved says why when not read.
	Default *constvalue.Value `json:"default,omitempty"`
	// PerCall is, for each CRI method the collectors reach, where the CRI
	// client's implementation bounds the call (context.WithTimeout), read
	// when the client's package was read from source; PerCallUnknown says
	// why it is empty.
	PerCall        []PerCall `json:"perCall"`
	PerCallUnknown string    `json:"perCallUnknown,omitempty"`
}

// PerCall is the timeout a CRI client's method puts on its call.
type PerCall struct {
	// Method is the CRI method (RuntimeService.ListPodSandbox) and Impl
	// its implementation (remoteRuntimeService.ListPodSandbox).
	Method string      `json:"method"`
	Impl   string      `json:"impl"`
	Decl   *srcpos.Pos `json:"decl"`
	// Timeout is the timeout as written (r.timeout) and Pos the
	// context.WithTimeout call; "" and null when the method sets none.
	Timeout string      `json:"timeout"`
	Pos     *srcpos.Pos `json:"pos"`
}

// StatusLoop is the loop asking the runtime's Status.
type StatusLoop struct {
	// Func is the method asking it (Kubelet.updateRuntimeUp), Decl its declaration.
	Func string      `json:"func"`
	Decl *srcpos.Pos `json:"decl"`
	// Status is the runtime's Status call.
	Status Step `json:"status"`
	// Started is the call running Func periodically, Period its period.
	Started *srcpos.Pos       `json:"started"`
	Period  *constvalue.Value `json:"period"`
}

// NodeStatusCall is the runtime call a node status setter makes.
type NodeStatusCall struct {
	// Method is the runtime's method handed to the setter (Runtime.Version).
	Method string `json:"method"`
	// Setter is the call handing it over as written (nodestatus.VersionInfo).
	Setter string     `json:"setter"`
	Pos    srcpos.Pos `json:"pos"`
	// SetterDecl is the setter's declaration and Call where it calls the
	// method; null when its body was not read.
	SetterDecl *srcpos.Pos `json:"setterDecl"`
	Call       *srcpos.Pos `json:"call"`
	// Func is the function listing the setters (Kubelet.defaultNodeStatusFuncs).
	Func string `json:"func"`
}

// DeadlineDuration is the CRI call's deadline: the constant, else the
// setting's default; false when neither was read.
func (h *Hang) DeadlineDuration() (time.Duration, bool) {
	if h == nil || h.Deadline == nil {
		return 0, false
	}
	if d, ok := h.Deadline.Value.Duration(); ok && h.Deadline.Value.Resolved() {
		return d, true
	}
	if h.Deadline.Default.Resolved() {
		return h.Deadline.Default.Duration()
	}
	return 0, false
}

// Files visits every position h holds, for an answer's -positions.
func (h *Hang) Files(visit srcpos.FileVisitor) {
	if h == nil {
		return
	}
	pos := func(p *srcpos.Pos) { srcpos.Files(visit, p) }
	step := func(s *Step) {
		pos(&s.Pos)
		pos(s.Decl)
		if s.Bound != nil {
			pos(s.Bound.Decl)
		}
		if s.Gate != nil {
			pos(s.Gate.SetPos)
			pos(s.Gate.Pos)
		}
	}
	for i := range h.Collectors {
		c := &h.Collectors[i]
		pos(c.Decl)
		pos(&c.Registered)
		pos(c.WhenPos)
		if c.Collect != nil {
			step(c.Collect)
		}
		for j := range c.Reaches {
			for k := range c.Reaches[j].Steps {
				step(&c.Reaches[j].Steps[k])
			}
		}
		for j := range c.Unresolved {
			step(&c.Unresolved[j].Step)
		}
	}
	for i := range h.StatsProviders {
		p := &h.StatsProviders[i]
		pos(&p.Pos)
		pos(p.Decl)
		pos(p.WhenPos)
		pos(p.WhenSetPos)
	}
	if d := h.Deadline; d != nil {
		pos(&d.Pos)
		for i := range d.PerCall {
			pos(d.PerCall[i].Decl)
			pos(d.PerCall[i].Pos)
		}
		d.Value.Files(visit)
		d.Default.Files(visit)
	}
	if l := h.StatusLoop; l != nil {
		pos(l.Decl)
		step(&l.Status)
		pos(l.Started)
		l.Period.Files(visit)
	}
	h.RuntimeDown.Files(visit)
	if r := h.Relist; r != nil {
		step(&r.List)
		for i := range r.Inspect {
			step(&r.Inspect[i])
		}
		for _, rs := range [][]Reach{r.ListCalls, r.InspectCalls} {
			for j := range rs {
				for k := range rs[j].Steps {
					step(&rs[j].Steps[k])
				}
			}
		}
		for j := range r.Unresolved {
			step(&r.Unresolved[j].Step)
		}
	}
	h.NodeStatusFrequency.Files(visit)
	if n := h.NodeStatus; n != nil {
		pos(&n.Pos)
		pos(n.SetterDecl)
		pos(n.Call)
	}
}

// Summary is the hang in the few values another answer (a live node's,
// the alerts') consumes, each with its evidence.
type Summary struct {
	// DarkOnHang: a collector registered on /metrics calls the runtime
	// during a scrape, so /metrics waits on a hung runtime.
	DarkOnHang bool `json:"darkOnHang"`
	// Chain is the first chain from a registration to a CRI call (Chain);
	// Collector is its collector's constructor as written
	// (collectors.NewVolumeStatsCollector), Provider the stats provider it
	// goes through (Reach.Provider; "" when none).
	Chain     []Step `json:"chain"`
	Collector string `json:"collector,omitempty"`
	Provider  string `json:"provider,omitempty"`
	// CRIMethods are the CRI methods the collectors reach (CRIMethods).
	CRIMethods []string `json:"criMethods"`
	// Deadline is each CRI call's deadline: the constant, else the
	// setting's default (Setting names it); nil when neither was read.
	// DeadlineAt is where the CRI client is given it (Deadline.Pos).
	Deadline   *constvalue.Value `json:"deadline"`
	Setting    string            `json:"setting,omitempty"`
	DeadlineAt *srcpos.Pos       `json:"deadlineAt,omitempty"`
	// RuntimeDown is the "container runtime is down" threshold.
	RuntimeDown *constvalue.Value `json:"runtimeDown"`
	// StatusPeriod is how often the runtime's Status is asked.
	StatusPeriod *constvalue.Value `json:"statusPeriod"`
	// NodeStatus is the runtime call the node status update waits on.
	NodeStatus *NodeStatusCall `json:"nodeStatus"`
}

// Summary is h's Summary; the zero Summary for a nil h.
func (h *Hang) Summary() Summary {
	if h == nil {
		return Summary{}
	}
	s := Summary{DarkOnHang: h.DarkOnHang(), Chain: h.Chain(), CRIMethods: h.CRIMethods(), RuntimeDown: h.RuntimeDown, NodeStatus: h.NodeStatus}
	s.Collector, s.Provider = h.chainCollector()
	if d := h.Deadline; d != nil {
		s.Setting = d.Setting
		at := d.Pos
		s.DeadlineAt = &at
		switch {
		case d.Value.Resolved():
			s.Deadline = d.Value
		case d.Default.Resolved():
			s.Deadline = d.Default
		}
	}
	if h.StatusLoop != nil {
		s.StatusPeriod = h.StatusLoop.Period
	}
	return s
}
