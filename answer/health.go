package answer

import (
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/plegperiods"
	"github.com/plegvet/plegvet/runtimehang"
)

// The health rule's parts are the pleg analyzer's own.
type (
	// Health is the kubelet's PLEG health rule, read from the tree's code.
	Health = plegperiods.Health
	// HealthRule is one registered health check and what it checks.
	HealthRule = plegperiods.HealthRule
	// HealthMessage is an error a health rule gives, its format and position.
	HealthMessage = plegperiods.HealthMessage
	// HealthThreshold is the relist-elapsed threshold in each mode.
	HealthThreshold = plegperiods.HealthThreshold
	// RuntimeDown is the runtime-down error and its threshold.
	RuntimeDown = plegperiods.RuntimeDown
	// SyncLoopSkip is where the sync loop skips pod synchronisation.
	SyncLoopSkip = plegperiods.SyncLoopSkip
	// ReadyWiring hands the failed checks to the node's Ready condition.
	ReadyWiring = plegperiods.ReadyWiring
	// Reconcile is the relist's evidence of level-triggered reconciliation.
	Reconcile = plegperiods.Reconcile
	// CodeStep is a step of the code: function, expression, position.
	CodeStep = plegperiods.CodeStep
	// RuntimeHang is what a runtime that stops answering does to the
	// node: /metrics, the CRI deadline, the status loop, the node status.
	RuntimeHang = runtimehang.Hang
	// HangStep is one call of a chain to the runtime.
	HangStep = runtimehang.Step
	// Reach is one CRI call a collector's scrape makes, and its chain.
	Reach = runtimehang.Reach
	// HangCollector is one collector registered, and what a scrape calls.
	HangCollector = runtimehang.Collector
	// HangSummary is the hang in the few values a node's answer or the
	// alerts consume (RuntimeHang.Summary).
	HangSummary = runtimehang.Summary
	// HangUnresolved is a call a hang's chain could not follow, and why.
	HangUnresolved = runtimehang.Unresolved
	// Deadline is the timeout the CRI client is built with.
	Deadline = runtimehang.Deadline
	// PerCall is the timeout a CRI client's method puts on its call.
	PerCall = runtimehang.PerCall
	// NodeStatusCall is the runtime call a node status setter makes.
	NodeStatusCall = runtimehang.NodeStatusCall
	// RelistCalls is what one relist asks the runtime.
	RelistCalls = runtimehang.Relist
	// Ladder is the latency ladder: the per-call latency at which each
	// of the kubelet's signals breaks (health.ladder).
	Ladder = ladder.Ladder
	// LadderRung is one rung of it.
	LadderRung = ladder.Rung
	// LadderInputs are the values it is computed from, each cited.
	LadderInputs = ladder.Inputs
)

func (v files) healthMessage(m *HealthMessage) {
	if m != nil {
		v.pos(&m.Pos)
	}
}

func (v files) codeStep(s *CodeStep) {
	if s != nil {
		v.pos(&s.Pos)
	}
}

func (v files) health(h *Health) {
	if h == nil {
		return
	}
	for i := range h.Checks {
		c := &h.Checks[i]
		v.pos(&c.Registered)
		if c.Gate != nil {
			v.pos(&c.Gate.Test)
		}
		v.pos(c.Decl)
		if t := c.Threshold; t != nil {
			v.value(t.GateOff)
			v.value(t.GateOn)
			v.value(t.Fallback)
		}
		v.value(c.Capacity)
		for j := range c.Messages {
			v.healthMessage(&c.Messages[j])
		}
		for j := range c.Records {
			v.codeStep(&c.Records[j])
		}
	}
	v.healthMessage(h.RuntimeErrors)
	if d := h.RuntimeDown; d != nil {
		v.healthMessage(&d.HealthMessage)
		v.value(d.Threshold)
	}
	if s := h.SyncLoopSkip; s != nil {
		v.pos(&s.Pos)
		v.pos(s.Backoff)
	}
	if w := h.ReadyCondition; w != nil {
		v.pos(&w.Pos)
		v.pos(w.Decl)
	}
	if r := h.Reconcile; r != nil {
		v.codeStep(r.List)
		v.codeStep(r.Compare)
	}
	h.RuntimeHang.Files(FileVisitor(v))
}
