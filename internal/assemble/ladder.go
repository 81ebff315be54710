package assemble

import (
	"fmt"
	"strings"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/runtimehang"
	"github.com/plegvet/plegvet/srcpos"
)

// ladderInputs are the latency ladder's inputs read from r: the CRI calls
// each kubelet loop makes (runtimehang), the gate-off relist's period and
// threshold, the status loop's, the runtime-down threshold, the node
// status update's frequency and the CRI deadline (their defaults), and
// the scrape timeout given. Each value says where it was read.
func ladderInputs(r *answer.Report, scrapeTimeout time.Duration, gates gateLookup) ladder.Inputs {
	in := ladder.Inputs{ScrapeTimeout: scrapeTimeout, From: map[string]string{"scrapeTimeout": "the scrape timeout given (Prometheus' default " + ladder.DefaultScrapeTimeout.String() + ")"}}
	h := r.Health.RuntimeHang
	cite := func(key string, v *constvalue.Value, into *time.Duration) {
		if d, ok := v.Duration(); ok && v.Resolved() {
			*into = d
			in.From[key] = citeValue(v)
		}
	}
	var scraped []runtimehang.Collector // the collectors counted on /metrics
	in.ScrapeCalls, in.ScrapeBounded, scraped = endpointCalls(h, "/metrics", "scrapeCalls", scrapeTimeout, in.From, gates)
	if in.ScrapeBounded != "" {
		in.From["scrapeBounded"] = in.ScrapeBounded
	}
	addScrapeCallsGated(&in, scraped, gates)
	// The other paths a consumer scrapes with a timeout of its own: no
	// rung when their calls are bounded (the count stays 0).
	in.ResourceScrapeCalls, _, _ = endpointCalls(h, "/metrics/resource", "resourceScrapeCalls", scrapeTimeout, in.From, gates)
	in.SummaryCalls, _, _ = endpointCalls(h, "/stats/summary", "summaryCalls", scrapeTimeout, in.From, gates)
	if rl := h.Relist; rl != nil {
		var ms []string
		in.RelistListCalls, ms = sequentialCalls(rl.ListCalls)
		in.From["relistListCalls"] = fmt.Sprintf("%s at %s calls %v", rl.List.Func, at(&rl.List.Pos), ms)
		for _, s := range rl.Inspect {
			if n, ms := sequentialCalls(inspectCalls(rl, s)); n > in.PodCalls {
				in.PodCalls = n
				in.From["podCalls"] = fmt.Sprintf("%s at %s calls %v", s.Func, at(&s.Pos), ms)
			}
		}
	}
	if l := h.StatusLoop; l != nil {
		in.StatusCalls = 1
		in.From["statusCalls"] = fmt.Sprintf("%s calls %s at %s", l.Func, l.Status.Func, at(&l.Status.Pos))
		cite("statusPeriod", l.Period, &in.StatusPeriod)
	}
	if n := h.NodeStatus; n != nil {
		in.NodeStatusCalls = 1
		in.From["nodeStatusCalls"] = fmt.Sprintf("%s hands %s to %s at %s", n.Func, n.Method, n.Setter, at(&n.Pos))
	}
	cite("nodeStatusFrequency", h.NodeStatusFrequency, &in.NodeStatusFrequency)
	if _, ok := in.From["nodeStatusFrequency"]; ok {
		in.From["nodeStatusFrequency"] = runtimehang.NodeStatusFrequencySetting + "'s default " + in.From["nodeStatusFrequency"]
	}
	cite("runtimeDown", h.RuntimeDown, &in.RuntimeDown)
	if s := h.Summary(); s.Deadline != nil {
		cite("deadline", s.Deadline, &in.Deadline)
		if s.Setting != "" {
			in.From["deadline"] = s.Setting + "'s default " + in.From["deadline"]
		}
	}
	if rel := r.Relist; rel != nil && rel.GateOff != nil {
		cite("relistPeriod", rel.GateOff.Period, &in.RelistPeriod)
		cite("relistThreshold", rel.GateOff.Threshold, &in.RelistThreshold)
	}
	return in
}

// endpointCalls are the CRI calls one request to path makes one after
// another (from[key] says which collector's, or handler's, and where),
// and, when no collector's calls count, why: each bounds them by a
// timeout of its own shorter than timeout.
func endpointCalls(h *answer.RuntimeHang, path, key string, timeout time.Duration, from map[string]string, gates gateLookup) (n int, boundedWhy string, counted []runtimehang.Collector) {
	var bounded []string
	for _, c := range h.Collectors {
		if c.Endpoint != path || c.Never || len(c.Reaches) == 0 {
			continue
		}
		// A collector whose own timeout is shorter than the scrape's
		// never holds the scrape past it.
		if ok, why := c.BoundBelow(timeout); ok {
			bounded = append(bounded, why)
			continue
		}
		// The registry gathers its collectors concurrently: a scrape
		// waits on the collector making the most calls.
		counted = append(counted, c)
		if k, ms := scrapeCalls(c.Reaches, gates); k > n && c.Collect != nil {
			n = k
			from[key] = fmt.Sprintf("%s's %s calls %v (%s)", c.Constructor, c.Collect.Func, ms, at(c.Collect.Decl))
		}
	}
	if len(bounded) == 0 {
		return n, "", counted
	}
	if n > 0 {
		from[key] += "; not counted: " + strings.Join(bounded, "; ")
		return n, "", counted
	}
	return 0, strings.Join(bounded, "; "), counted
}

// inspectCalls are the CRI calls reached through the inspection s.
func inspectCalls(rl *runtimehang.Relist, s runtimehang.Step) []runtimehang.Reach {
	var out []runtimehang.Reach
	for _, rc := range rl.InspectCalls {
		if len(rc.Steps) > 0 && rc.Steps[0].Pos == s.Pos {
			out = append(out, rc)
		}
	}
	return out
}

// sequentialCalls counts the calls a loop waits on one after another in
// its slowest run (slowestRun, reading no gate): each distinct CRI method
// reached outside a goroutine, and one for all those made in goroutines
// (they wait beside each other); ms names them.
func sequentialCalls(rs []runtimehang.Reach) (n int, ms []string) {
	n, ms, _ = gatedCalls(rs, nil)
	return n, ms
}

// addLadder computes the report's latency ladder (Health.Ladder), for no
// pod changing and Prometheus' default scrape timeout, with the feature
// gates' defaults from gates.
func addLadder(r *answer.Report, gates gateLookup) {
	if r.Health == nil || r.Health.RuntimeHang == nil {
		return
	}
	r.Health.Ladder = ladder.Compute(ladderInputs(r, ladder.DefaultScrapeTimeout, gates), 0)
}

// noteLadderUnknown adds a Load.Unfollowed line (the command exits 1) for
// a tree whose hang or ladder plegvet recognises in part: some of the
// loops were found, and what the others need was not. A tree in which
// none of them is found (a look-alike, or no kubelet) says unknown, why,
// in the answer alone.
func noteLadderUnknown(r *answer.Report) {
	if r.Health == nil || r.Health.RuntimeHang == nil || r.Health.Ladder == nil {
		return
	}
	h := r.Health.RuntimeHang
	if len(h.Collectors) == 0 && h.StatusLoop == nil && h.Deadline == nil && h.Relist == nil {
		return
	}
	for _, why := range []string{h.Unknown, r.Health.Ladder.Unknown} {
		if why == "" {
			continue
		}
		line := answer.KubeletPackage + ": the runtime's latency ladder is not whole: " + why
		if !contains(r.Source.Load.Unfollowed, line) {
			r.Source.Load.Unfollowed = append(r.Source.Load.Unfollowed, line)
		}
	}
}

func citeValue(v *constvalue.Value) string {
	s := v.Value
	if v.Const != "" {
		s += " = " + v.Const
	}
	if v.Decl != nil {
		s += " (" + at(v.Decl) + ")"
	}
	return s
}

func at(p *srcpos.Pos) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
