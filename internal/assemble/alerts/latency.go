package alerts

import (
	"fmt"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/ladder"
)

// The ladder's rungs the rules name.
const (
	rungMetricsDark = ladder.RungMetricsDark
	rungRuntimeDown = ladder.RungRuntimeDown
	rungPLEG        = ladder.RungPLEG
	rungDeadline    = ladder.RungDeadline
)

// The latency rule reads the latencyQuantile of the calls every kubelet
// loop makes (the status loop's Status, the node status' Version, the
// relist's lists: quick calls, never slow by nature, unlike a pull or a
// stop) over latencyWindow, and fires when it stays past the rung for
// latencyFor: short, since at the rung the node's Ready starts to flap.
const (
	latencyQuantile = "0.9"
	latencyWindow   = 2 * time.Minute
	latencyFor      = time.Minute
	latencyOps      = "status|version|list_podsandbox|list_containers"
)

// ladderOf is the latency ladder the report carries (health.ladder);
// nil when it carries none.
func ladderOf(rep *answer.Report) *answer.Ladder {
	if rep.Health == nil {
		return nil
	}
	return rep.Health.Ladder
}

// cite is the rungs of l named, those it has, in order.
func cite(l *answer.Ladder, names ...string) []answer.LadderRung {
	var out []answer.LadderRung
	for _, n := range names {
		if r := l.Rung(n); r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// latencyQuantileOf is the q quantile of the latencyOps calls' latency
// over latencyWindow, per kubelet and operation.
func latencyQuantileOf(q string) string {
	return fmt.Sprintf("histogram_quantile(%s, sum by (instance, job, operation_type, le) (rate(kubelet_runtime_operations_duration_seconds_bucket{operation_type=~%q}[%s])))", q, latencyOps, window(latencyWindow))
}

// runtimeSlow is the rule for runtime calls slower than the ladder's
// runtime-down rung, the per-call latency at which the kubelet declares
// the runtime down and the node NotReady: a warning before it does. A
// quantile is only read while /metrics answers: a runtime slow in every
// call darkens /metrics at a lower rung (KubeletMetricsDark says so);
// this rule sees the runtime slow in the calls a scrape does not make.
// The calls that waited through a dark period are observed when they
// end: the rule holds off while any scrape failed over its window and
// its for, so that it never fires first after the fault ended.
func runtimeSlow(a *answer.Alerts, s series, scope string, lad *answer.Ladder) {
	down := cite(lad, rungRuntimeDown)
	switch {
	case lad == nil:
		unwritten(a, answer.AlertRuntimeSlow, "the report carries no latency ladder (health.ladder): the latency at which this release's kubelet declares a slow runtime down is not known")
		return
	case len(down) == 0 || down[0].Seconds <= 0:
		why := "no latency turns this release's node NotReady for the runtime"
		if lad.Unknown != "" {
			why = lad.Unknown
		}
		unwritten(a, answer.AlertRuntimeSlow, "the latency ladder has no runtime-down rung: %s", why)
		return
	case down[0].PastDeadline:
		unwritten(a, answer.AlertRuntimeSlow, "the latency ladder's runtime-down rung (%s) lies at or past the calls' deadline: a call fails before it is that slow, and the runtime is taken for hung (KubeletMetricsDark, KubeletRuntimeHung)", down[0].Latency)
		return
	case s.l.Job == "":
		unwritten(a, answer.AlertRuntimeSlow, "no scrape job is named")
		return
	}
	r := down[0]
	// Fire a status period short of the rung, where the ladder has
	// computed that margin: a warning before Ready flaps, not at it.
	at, atSeconds := r.Latency, r.Seconds
	if r.Warn != "" && r.WarnSeconds > 0 {
		at, atSeconds = r.Warn, r.WarnSeconds
	}
	a.Rules = append(a.Rules, answer.AlertRule{
		Alert: nameLatency, Kind: answer.AlertRuntimeSlow, Mode: answer.ModeAlways, Signal: answer.SignalRuntimeLatency, Severity: "warning",
		Expr: fmt.Sprintf("(%s > %s) unless %s min_over_time(%s[%s]) == 0%s",
			latencyQuantileOf(latencyQuantile), fmt.Sprint(atSeconds), join, s.up(s.l.MetricsPath), window(latencyWindow+latencyFor), scope),
		For: window(latencyFor), At: at, Needs: []string{answer.NeedsKubelet, answer.NeedsUp}, Rungs: cite(lad, rungRuntimeDown, rungMetricsDark, rungDeadline),
	})
}
