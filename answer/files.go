package answer

import (
	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/runtimestream"
)

// Located is an answer that names files of the tree read.
type Located interface {
	// Files calls visit with a pointer to every file name the answer's
	// JSON form holds: the File of each position, with the position (whose
	// URL and Path relocation sets), and each "file" key that names a whole
	// file (a feature map's, a generator's), with nil. A name may be
	// visited twice where two parts of an answer share a position.
	Files(visit FileVisitor)
}

// files visits the file names of the answers' parts; a nil part has none.
type files FileVisitor

func (v files) pos(p *Pos) {
	if p != nil {
		v(&p.File, p)
	}
}

func (v files) diagnostics(ds []Diagnostic) {
	for i := range ds {
		d := &ds[i]
		v.pos(&d.Pos)
		v.pos(d.End)
		for j := range d.Related {
			v.pos(&d.Related[j].Pos)
			v.pos(d.Related[j].End)
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

// conflicts visits the positions of conflicts: not in the JSON, but
// printed beside the diagnostics, and named as they are.
func (v files) conflicts(cs []RegistrationConflict) {
	for i := range cs {
		v.pos(&cs[i].First)
		v.pos(&cs[i].Again)
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
	if g == nil {
		return
	}
	v.pos(g.Decl)
	v.pos(&g.Entry)
	v.specs(g.Specs)
	v(&g.File, nil)
	for i := range g.Registrations {
		r := &g.Registrations[i]
		v(&r.File, nil)
		v.pos(&r.Entry)
		v.specs(r.Specs)
	}
	v.spec(g.Effective)
	for i := range g.SetInCode {
		v.pos(&g.SetInCode[i].Pos)
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
		v(&m.File, nil)
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

// value and retries visit a value's or a retry count's positions, which
// their own Files methods name (a nil one has none).
func (v files) value(x *Value) {
	if x != nil {
		x.Files(FileVisitor(v))
	}
}

func (v files) retries(r *RetryCount) {
	if r != nil {
		r.Files(FileVisitor(v))
	}
}
