// Slow told from hung: a hung runtime turns the node NotReady within the
// time the source gives (ladder.HangNotReady), so a node still Ready past
// it while /metrics waits answers, slowly; one turned NotReady for the
// runtime within it is hung. From a scrape that answered, the kubelet's
// own call durations give the latency. Either way, the latency is placed
// on the source's ladder.

package nodeverdict

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/plegvet/plegvet/ladder"
)

// darkRuntime tells hung from slow while /metrics is dark, from the
// kubelet's Ready condition and when the dark began (after the last
// scrape that answered). byRuntime says the dark is the runtime's doing.
func (d *decider) darkRuntime(h *Health, byRuntime bool, t darkTimes) {
	var ready *Condition
	var r ReadyReading
	if n := d.in.Node; n != nil && n.Ready != nil {
		ready, r = n.Ready, ReadReady(n.Ready.Message, d.in.Health.Words)
	}
	told := func(s string) { h.Evidence = append(h.Evidence, s) }
	if !byRuntime {
		if ready != nil && ready.Status == "False" && r.RuntimeDown {
			told("the kubelet says its runtime is down (its runtime-up check failed): its calls fail or wait; the failed metrics request says nothing of which")
		}
		return
	}
	lo, hi, bounds, ok := d.hangBounds()
	switch {
	case ready == nil:
		told("slow cannot be told from hung without the Node's Ready condition: " + bounds)
	case !ok:
		told("slow cannot be told from hung: " + bounds)
	case t.lastGood == nil:
		told("slow cannot be told from hung: /metrics went dark after the last scrape that answered, whose time is not known or not to be trusted; " + bounds)
	case ready.Status == "True":
		d.readyThroughDark(h, *t.lastGood, hi, bounds)
	case ready.Status == "False" && r.RuntimeDown:
		d.downInDark(h, *t.lastGood, ready, lo, hi, bounds)
	case ready.Status == "False" && r.PLEGUnhealthy:
		within := cmp.Or(d.in.Health.Words.RuntimeDownAfter, "its threshold")
		told("the kubelet says its PLEG is not healthy, not that its runtime is down: its runtime-up check passed when Ready was set (a status call had answered within " + within + "), so the runtime is not hung whole: the relist's own calls are held (one call held, a hung mount) or slow: " + d.plegRungWords())
	default:
		told("the Ready condition says nothing of the runtime: slow cannot be told from hung")
	}
}

// readyThroughDark: the node is Ready at the capture's time (the Node
// object taken as read then), the dark begun after lastGood.
func (d *decider) readyThroughDark(h *Health, lastGood time.Time, hi time.Duration, bounds string) {
	at := *d.in.At
	darkFor := at.Sub(lastGood)
	if darkFor <= hi {
		h.Evidence = append(h.Evidence, fmt.Sprintf("slow and hung are not yet told apart: /metrics went dark after the last scrape that answered (%s), at most %s before the capture; %s; if the node is still Ready at %s, the runtime answers, slowly: a hung one turns it False before",
			lastGood.Format(time.RFC3339), darkFor.Round(time.Millisecond), bounds, lastGood.Add(hi).Format(time.RFC3339)))
		return
	}
	h.Runtime = RuntimeSlow
	from := "/metrics timed out while the node stayed Ready"
	var lo, up float64
	if in := d.in.Ladder; in != nil {
		l := ladder.Compute(*in, 0)
		if rg := l.Rung(ladder.RungMetricsDark); rg != nil {
			lo = rg.Seconds
			from = fmt.Sprintf("/metrics timed out (its %s rung: a scrape's calls past %s from %s per call)", rg.Name, in.ScrapeTimeout, rg.Latency)
		}
		if rg := l.Rung(ladder.RungRuntimeDown); rg != nil {
			up = rg.Seconds
			from += fmt.Sprintf(", while Ready does not say the runtime is down (its %s rung, %s per call)", rg.Name, rg.Latency)
		}
	}
	h.Latency = d.placed(lo, up, from)
	h.Evidence = append(h.Evidence, fmt.Sprintf("slow, not hung: the node is still Ready %s after the last scrape that answered (%s), past the %s within which a runtime hung since then turns it False (%s): its calls answer, late, through the dark (a hang begun within the last %s would not show yet); %s",
		darkFor.Round(time.Millisecond), lastGood.Format(time.RFC3339), hi, bounds, hi, h.Latency.words()))
}

// downInDark: Ready False for the runtime while /metrics is dark; when
// it turned False, against lastGood, tells a hang from calls that fail
// or answer too slowly for the runtime-up check.
func (d *decider) downInDark(h *Health, lastGood time.Time, ready *Condition, lo, hi time.Duration, bounds string) {
	told := func(s string) { h.Evidence = append(h.Evidence, s) }
	turned := ready.LastTransitionTime
	if turned == nil {
		told("the Ready condition has no lastTransitionTime: when the runtime was declared down is not known, so slow cannot be told from hung")
		return
	}
	after := turned.Sub(lastGood)
	when := fmt.Sprintf("Ready turned False for the runtime at %s, %s after the last scrape that answered (%s)", turned.Format(time.RFC3339), after.Round(time.Millisecond), lastGood.Format(time.RFC3339))
	switch {
	case after < -gaugeResolution:
		told(fmt.Sprintf("Ready turned False for the runtime at %s, before the last scrape that answered (%s): the runtime was declared down while the kubelet still answered its metrics; slow cannot be told from hung", turned.Format(time.RFC3339), lastGood.Format(time.RFC3339)))
	case after < lo-gaugeResolution:
		// Not a hang (too soon), not a dead runtime (its calls fail at
		// once and /metrics answers): calls that wait, less than their
		// deadline, past the runtime-up check's.
		h.Runtime = RuntimeSlow
		h.Latency = d.pastRuntimeDown("Ready turned False for the runtime sooner than a hang can, while /metrics waits on its calls")
		told(when + ": sooner than a runtime hung since then can turn it (" + bounds + "), and /metrics waits on its calls where a runtime that fails them at once leaves it answering: its calls answer, too slowly for its runtime-up check; " + h.Latency.words())
	case after > hi+gaugeResolution:
		h.Runtime = RuntimeSlow
		h.Latency = d.pastRuntimeDown("Ready turned False for the runtime later than a hang allows")
		told(when + ": later than a runtime hung since then turns it (" + bounds + "): its calls answered through the dark, too slowly for its runtime-up check; " + h.Latency.words())
	default:
		h.Runtime = RuntimeHung
		told(when + ": within the time a runtime hung since then takes to turn it (" + bounds + "): hung")
	}
}

// plegRungWords says which per-call latency fails the PLEG, from the
// ladder when known.
func (d *decider) plegRungWords() string {
	if in := d.in.Ladder; in != nil {
		l := ladder.Compute(*in, 0)
		if rg := l.Rung(ladder.RungPLEG); rg != nil {
			pods := "less with pods changing"
			if n, ok := l.Overload(time.Second); ok {
				pods = fmt.Sprintf("less with pods changing: at 1s per call, %d pods changing at once, as when that many start together", n)
			}
			return fmt.Sprintf("every call past the ladder's %s rung (from %s per call with no pod changing; %s)", rg.Name, rg.Latency, pods)
		}
	}
	return "every call slower than a relist cycle within the threshold allows, or slower with pods changing (the ladder is not known: " + d.ladderMissing() + ")"
}

// pastRuntimeDown is the latency of a runtime whose status calls passed
// the runtime-up check while they answer within their deadline: from the
// ladder's runtime-down rung to the deadline.
func (d *decider) pastRuntimeDown(from string) *Latency {
	var least float64
	if in := d.in.Ladder; in != nil {
		if rg := ladder.Compute(*in, 0).Rung(ladder.RungRuntimeDown); rg != nil {
			least = rg.Seconds
			from += fmt.Sprintf(": its status calls past its %s rung (%s per call)", rg.Name, rg.Latency)
		}
	}
	return d.placed(least, d.deadlineSeconds(), from)
}

// hangBounds is when a hung runtime turns Ready False after the hang
// began (ladder.HangNotReady over the node's ladder inputs), with the
// words saying so; ok is false when the ladder is not known, the words
// saying why and what is known.
func (d *decider) hangBounds() (lo, hi time.Duration, words string, ok bool) {
	in := d.in.Ladder
	if in == nil {
		return 0, 0, "when a hung runtime turns Ready False is not bounded: " + d.ladderMissing(), false
	}
	lo, hi, ok = ladder.HangNotReady(*in)
	if !ok {
		return 0, 0, "the ladder's inputs (" + d.in.LadderFrom + ") do not bound when a hung runtime turns Ready False", false
	}
	calls := "calls"
	if in.NodeStatusCalls == 1 {
		calls = "call"
	}
	return lo, hi, fmt.Sprintf("a hung runtime turns Ready False %s to %s after the hang began (the node status update waits on %d CRI %s of a %s deadline before its Ready setter, the runtime is declared down %s after its last status, the node status is computed every %s; %s)",
		lo, hi, in.NodeStatusCalls, calls, in.Deadline, in.RuntimeDown, in.NodeStatusFrequency, d.in.LadderFrom), true
}

// ladderMissing says why the ladder is not known, and what is.
func (d *decider) ladderMissing() string {
	why := cmp.Or(d.in.LadderWhy, "the source read gives no latency ladder")
	var known []string
	if t := d.in.RequestTimeout; t > 0 {
		known = append(known, "runtimeRequestTimeout "+t.String()+" (configz)")
	}
	if f := d.in.StatusFrequency; f > 0 {
		known = append(known, "nodeStatusUpdateFrequency "+f.String()+" (configz)")
	}
	if w := d.in.Health.Words; w.RuntimeDown != "" && w.RuntimeDownAfter != "" {
		known = append(known, fmt.Sprintf("%q after %s", w.RuntimeDown, w.RuntimeDownAfter))
	}
	if len(known) == 0 {
		return why
	}
	return why + "; known: " + strings.Join(known, ", ") + "; not how many CRI calls the node status update waits on before its Ready setter, on which the bound rests"
}

// ladderReading is what the ladder says of this node, in words.
func (d *decider) ladderReading() string {
	in := d.in.Ladder
	if in == nil {
		return "the latency ladder is not known: " + cmp.Or(d.in.LadderWhy, "the source read gives none")
	}
	l := ladder.Compute(*in, 0)
	if len(l.Rungs) == 0 {
		return "the latency ladder is not known: " + l.Unknown
	}
	var rungs []string
	for _, r := range l.Rungs {
		rungs = append(rungs, fmt.Sprintf("%s from %s per call (%s)", r.Name, r.Latency, r.What))
	}
	s := "the latency ladder (" + d.in.LadderFrom + ", no pod changing): " + strings.Join(rungs, "; ")
	if l.Unknown != "" {
		s += "; not computed: " + l.Unknown
	}
	if lo, hi, ok := ladder.HangNotReady(*in); ok {
		s += fmt.Sprintf("; a hung runtime turns Ready False %s to %s after the hang began", lo, hi)
	}
	return s
}

// deadlineSeconds is the CRI calls' deadline in seconds; 0 when not known.
func (d *decider) deadlineSeconds() float64 {
	t, _ := d.requestTimeout()
	return t.Seconds()
}

// placed is a latency from min to max seconds (max 0: unbounded), placed
// on the node's ladder when it is known.
func (d *decider) placed(min, max float64, from string) *Latency {
	l := &Latency{MinSeconds: min, MaxSeconds: max, From: from}
	if in := d.in.Ladder; in != nil {
		on, next := ladder.Compute(*in, 0).Place(time.Duration(min * float64(time.Second)))
		if on != nil {
			r := *on
			l.Rung = &r
		}
		if next != nil {
			r := *next
			l.Next = &r
		}
	}
	return l
}

// words says a latency and its rungs.
func (l *Latency) words() string {
	if l == nil {
		return ""
	}
	s := "each CRI call takes"
	switch {
	case l.MinSeconds > 0 && l.MaxSeconds > 0:
		s += fmt.Sprintf(" from %s to %s", bound(l.MinSeconds), bound(l.MaxSeconds))
	case l.MinSeconds > 0:
		s += " at least " + bound(l.MinSeconds)
	case l.MaxSeconds > 0:
		s += " at most " + bound(l.MaxSeconds)
	default:
		s += " an unknown time"
	}
	s += " (" + l.From + ")"
	switch {
	case l.Rung != nil:
		s += fmt.Sprintf("; on the ladder's %s rung (from %s per call: %s)", l.Rung.Name, l.Rung.Latency, l.Rung.What)
	case l.Next != nil:
		s += "; below every rung of the ladder"
	}
	if l.Next != nil {
		s += fmt.Sprintf("; next: %s from %s per call (%s)", l.Next.Name, l.Next.Latency, l.Next.What)
	} else if l.Rung != nil {
		s += "; the last rung"
	}
	return s
}

// ladderOps are the CRI calls the ladder counts: the relist's, the
// runtime-up check's and the node status update's.
var ladderOps = []string{OpListPodSandbox, OpListContainers, OpPodSandboxStatus, OpContainerStatus, OpStatus, OpVersion}

// measuredSlow reads, from a scrape that answered, the slowest calls the
// ladder counts that took seconds but less than their deadline: the
// runtime answers, slowly (or did: the histogram counts since the
// kubelet started). nil when none did.
func (d *decider) measuredSlow() (*Latency, string) {
	deadline := d.deadlineSeconds()
	if deadline <= 0 {
		// Without the deadline, a call that took minutes may have waited
		// its whole deadline: hung, not slow.
		return nil, ""
	}
	var (
		best, atMost float64
		op           string
		slow, of     uint64
	)
	for _, name := range ladderOps {
		o := d.in.Metrics.RuntimeOperations[name]
		if o.Duration == nil {
			continue
		}
		above, hi, ok := o.Duration.Quantile(o.Duration.Count)
		if !ok || above < SlowCall || above >= deadlineFraction*deadline || above <= best {
			continue
		}
		n, _, _ := o.Duration.above(SlowCall)
		best, atMost, op, slow, of = above, hi, name, n, o.Duration.Count
	}
	if op == "" {
		return nil, ""
	}
	if math.IsInf(atMost, 1) {
		atMost = 0
	}
	from := fmt.Sprintf("the slowest %s calls, in (%s, %s] of %s", op, bound(best), bound(cmp.Or(atMost, math.Inf(1))), MetricRuntimeOperationsDuration)
	l := d.placed(best, atMost, from)
	return l, fmt.Sprintf("the runtime answers slowly: %d of %d %s calls took more than %s, below %v of their deadline (runtimeRequestTimeout %s), since the kubelet started (a cumulative histogram: a past episode reads the same); %s",
		slow, of, op, bound(SlowCall), deadlineFraction, time.Duration(deadline*float64(time.Second)), l.words())
}
