package answer

import (
	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/plegperiods"
	"github.com/plegvet/plegvet/runtimestream"
)

// Located is an answer that names files of the tree read.
type Located interface {
	// Files calls visit with a pointer to every file name the answer's
	// JSON form holds: the File of each position, and each "file" key
	// (a feature map's, a generator's). A name may be visited twice
	// where two parts of an answer share a position.
	Files(visit func(*string))
}

// files visits the file names of the answers' parts; a nil part has none.
type files func(*string)

func (v files) pos(p *Pos) {
	if p != nil {
		v(&p.File)
	}
}

func (v files) diagnostics(ds []Diagnostic) {
	for i := range ds {
		d := &ds[i]
		v.pos(&d.Pos)
		v.pos(d.End)
		for j := range d.Related {
			v.pos(&d.Related[j].Pos)
		}
		for j := range d.Fixes {
			for k := range d.Fixes[j].Edits {
				e := &d.Fixes[j].Edits[k]
				v.pos(&e.Pos)
				v.pos(&e.End)
			}
		}
	}
}

func (v files) spec(s *Spec) {
	if s != nil {
		v.pos(&s.Pos)
	}
}

func (v files) specs(ss []Spec) {
	for i := range ss {
		v.spec(&ss[i])
	}
}

func (v files) gate(g *Gate) {
	v.pos(g.Decl)
	v.pos(&g.Entry)
	v.specs(g.Specs)
	v(&g.File)
	for i := range g.Registrations {
		r := &g.Registrations[i]
		v(&r.File)
		v.pos(&r.Entry)
		v.specs(r.Specs)
	}
}

func (v files) value(x *plegperiods.Value) {
	if x != nil {
		v.pos(x.Decl)
	}
}

func (v files) retries(r *plegperiods.RetryCount) {
	if r != nil {
		v.pos(r.Decl)
	}
}

func (v files) mode(m *plegperiods.Mode) {
	if m != nil {
		v.value(m.Period)
		v.value(m.Threshold)
		v.pos(m.Call)
		v.pos(m.Loop)
	}
}

func (v files) relist(r *plegperiods.Relist) {
	if r == nil {
		return
	}
	if g := r.Gate; g != nil {
		v.pos(&g.Test)
	}
	if u := r.GateUnresolved; u != nil {
		v.pos(&u.Test)
		v.pos(u.Evented)
	}
	v.mode(r.GateOff)
	if on := r.GateOn; on != nil {
		v.mode(&on.Mode)
		v.pos(on.Evented)
		v.value(on.Fallback)
		v.retries(on.MaxStreamRetries)
	}
	for i := range r.GateSetInCode {
		v.pos(&r.GateSetInCode[i].Pos)
	}
}

func (v files) evented(e *plegperiods.EventedRole) {
	if e == nil {
		return
	}
	v.pos(&e.Constructed)
	v.pos(e.EmitsLifecycleEvents)
	v.pos(e.UpdatesPodCache)
	if r := e.RequestsRelist; r != nil {
		v.pos(&r.Pos)
	}
	if h := e.HealthCheck; h != nil {
		v.pos(&h.Pos)
	}
	v.retries(e.OnStreamFailure.After)
	v.pos(e.OnStreamFailure.Pos)
	if f := e.RelistOnStreamError; f != nil {
		v.pos(&f.Pos)
		v.pos(&f.Stream)
		v.pos(&f.RelistDecl)
		v.pos(&f.UpdatesPodCache)
		v.pos(f.EmitsLifecycleEvents)
	}
}

func (v files) syncLoop(s *plegperiods.SyncLoop) {
	if s == nil {
		return
	}
	v.pos(&s.Pos)
	v.pos(&s.PLEGCase)
	for i := range s.Ticks {
		t := &s.Ticks[i]
		v.pos(&t.Case)
		v.value(t.Period)
		v.pos(t.Ticker)
	}
}

func (v files) rpc(r *RPC) {
	if r == nil {
		return
	}
	v.pos(&r.RPC.Pos)
	for i := range r.RequestFields {
		v.pos(&r.RequestFields[i].Pos)
	}
	for i := range r.ResponseFields {
		v.pos(&r.ResponseFields[i].Pos)
	}
	for i := range r.GoCalls {
		v.pos(&r.GoCalls[i])
	}
}

func (v files) markdown(m *featurelist.MarkdownGenerator) {
	if m != nil {
		v(&m.File)
	}
}

func (v files) servers(ss []runtimestream.Server) {
	for i := range ss {
		s := &ss[i]
		v.pos(&s.Pos)
		v.pos(s.Evidence)
		for j := range s.Via {
			v.pos(s.Via[j].Pos)
		}
	}
}
