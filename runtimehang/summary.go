package runtimehang

import "github.com/plegvet/plegvet/srcpos"

// chainCollector is the collector Chain starts from and the stats
// provider it goes through; "" when none.
func (h *Hang) chainCollector() (collector, provider string) {
	for _, c := range h.Collectors {
		if len(c.Reaches) > 0 && c.Collect != nil {
			return c.Constructor, c.Reaches[0].Provider // the reach Chain takes
		}
	}
	return "", ""
}

// Method is the CRI method Chain ends in; "" without a chain.
func (s *Summary) Method() string {
	if s == nil || len(s.Chain) == 0 {
		return ""
	}
	return s.Chain[len(s.Chain)-1].Func
}

// Files visits every position s holds, for an answer's -positions.
func (s *Summary) Files(visit srcpos.FileVisitor) {
	if s == nil {
		return
	}
	for i := range s.Chain {
		srcpos.Files(visit, &s.Chain[i].Pos, s.Chain[i].Decl)
		if g := s.Chain[i].Gate; g != nil {
			srcpos.Files(visit, g.SetPos, g.Pos)
		}
	}
	srcpos.Files(visit, s.DeadlineAt)
	s.Deadline.Files(visit)
	s.RuntimeDown.Files(visit)
	s.StatusPeriod.Files(visit)
	if n := s.NodeStatus; n != nil {
		srcpos.Files(visit, &n.Pos, n.SetterDecl, n.Call)
	}
}
