package alerts

import (
	"fmt"
	"time"

	"github.com/plegvet/plegvet/answer"
)

// The ladder's rungs the rules name (ladder.RungMetricsDark and so on).
const (
	rungMetricsDark = "metrics-dark"
	rungRuntimeDown = "runtime-down"
	rungPLEG        = "pleg-unhealthy"
	rungDeadline    = "deadline"
)

// The latency rule reads the latencyQuantile of the calls every kubelet
// loop makes (the status loop's Status, the node status' Version, the
// relist's lists: quick calls, never slow by nature, unlike a pull or a
// stop) over latencyWindow.
const (
	latencyQuantile = "0.9"
	latencyWindow   = 5 * time.Minute
	latencyOps      = "status|version|list_podsandbox|list_containers"
)

// rungs is the latency ladder the report carries (health.ladder), by
// rung name; nil when it carries none.
type rungs map[string]answer.AlertRung

// ladderOf is the report's ladder.
func ladderOf(rep *answer.Report) *rungs {
	_ = rep // health.ladder: switched on when the ladder package lands
	return nil
}

// cite is the rungs named, those the ladder has, in order.
func (l *rungs) cite(names ...string) []answer.AlertRung {
	if l == nil {
		return nil
	}
	var out []answer.AlertRung
	for _, n := range names {
		if r, ok := (*l)[n]; ok {
			out = append(out, r)
		}
	}
	return out
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
func runtimeSlow(a *answer.Alerts, s series, scope string, lad *rungs) {
	down := lad.cite(rungRuntimeDown)
	switch {
	case lad == nil:
		unwritten(a, answer.AlertRuntimeSlow, "the report carries no latency ladder (health.ladder): the latency at which this release's kubelet declares a slow runtime down is not known")
		return
	case len(down) == 0 || down[0].Seconds <= 0:
		unwritten(a, answer.AlertRuntimeSlow, "the latency ladder has no runtime-down rung: no latency turns this release's node NotReady for the runtime")
		return
	case s.l.Job == "":
		unwritten(a, answer.AlertRuntimeSlow, "no scrape job is named")
		return
	}
	r := down[0]
	a.Rules = append(a.Rules, answer.AlertRule{
		Alert: nameLatency, Kind: answer.AlertRuntimeSlow, Mode: answer.ModeAlways, Signal: answer.SignalRuntimeLatency, Severity: "warning",
		Expr: fmt.Sprintf("(histogram_quantile(%s, sum by (instance, job, operation_type, le) (rate(kubelet_runtime_operations_duration_seconds_bucket{operation_type=~%q}[%s]))) > %s) unless %s min_over_time(%s[%s]) == 0%s",
			latencyQuantile, latencyOps, window(latencyWindow), fmt.Sprint(r.Seconds), join, s.up(s.l.MetricsPath), window(latencyWindow+slowFor), scope),
		For: window(slowFor), At: r.Latency, Needs: []string{answer.NeedsKubelet, answer.NeedsUp}, Rungs: lad.cite(rungRuntimeDown, rungMetricsDark, rungDeadline),
	})
}
