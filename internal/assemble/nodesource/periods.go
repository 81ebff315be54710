// The relist periods as the decision takes them, each with its evidence.

package nodesource

import (
	"fmt"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/nodeverdict"
)

// relistPeriods turns the source's relist answer into the decision's facts.
func relistPeriods(r answer.Relist) nodeverdict.Periods {
	var p nodeverdict.Periods
	if r.GateOff != nil {
		p.GateOff = period(r.GateOff.Period)
	}
	if r.GateOn == nil {
		return p
	}
	p.GateOn, p.Fallback = period(r.GateOn.Period), period(r.GateOn.Fallback)
	if rc := r.GateOn.MaxStreamRetries; rc != nil && rc.Value != nil {
		p.MaxStreamRetries, p.RetriesKnown = *rc.Value, true
		p.MaxStreamRetriesCause = render.Evidence(fmt.Sprint(*rc.Value), rc.Const, rc.Decl)
	}
	return p
}

func period(v *answer.Value) nodeverdict.Period {
	switch {
	case v == nil:
		return nodeverdict.Period{Evidence: "none"}
	case v.Unresolved != "":
		return nodeverdict.Period{Evidence: render.Value(v, render.Cited), Unresolved: v.Unresolved}
	}
	d, ok := v.Duration()
	return nodeverdict.Period{Duration: d, Known: ok, Evidence: render.Value(v, render.Cited)}
}
