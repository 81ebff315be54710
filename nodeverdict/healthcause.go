// What the scrape says stalls the relist: the CRI calls the relist and
// the runtime-up check make, and how long relists took.

package nodeverdict

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SlowCall is how long, in seconds, a CRI call may take before the
// evidence counts it slow: the kubelet's calls take milliseconds, and its
// buckets tell a second from a minute.
const SlowCall = 1.0

// callGroups are the CRI calls the health of the PLEG rests on, in the
// order a cause is named: the relist's list calls, the status calls it
// makes for pods that changed, and the runtime-up check's.
var callGroups = []struct {
	ops  []string
	what string
}{
	{[]string{OpListPodSandbox, OpListContainers}, "the runtime's list calls failed or were slow (%s): every relist lists first, and one whose list fails or hangs leaves the last-seen time where it was"},
	{[]string{OpPodSandboxStatus, OpContainerStatus}, "the runtime's status calls for pods that changed failed or were slow (%s): the relist waits for them before the next can start"},
	{[]string{OpStatus}, "the runtime's own status call, the kubelet's check that the container runtime is up, failed or was slow (%s): the runtime is down or not ready"},
}

// causes adds to h what the scrape's CRI calls and relist durations say,
// and, for a PLEG unhealthy or at risk, names the likely cause: the first group of
// calls that failed or were slow, else relists that took long.
func (d *decider) causes(h *Health, th Threshold) {
	m := d.in.Metrics
	cause := ""
	if m.RuntimeOperations == nil {
		h.Evidence = append(h.Evidence, "the capture has no kubelet_runtime_operations_* families: which CRI call stalls the relist cannot be read from it")
	}
	for _, g := range callGroups {
		var faults []string
		for _, op := range g.ops {
			if f := opFault(op, m.RuntimeOperations[op]); f != "" {
				faults = append(faults, f)
			}
		}
		if len(faults) == 0 {
			continue
		}
		text := strings.Join(faults, "; ")
		h.Evidence = append(h.Evidence, text+", since the kubelet started ("+MetricRuntimeOperationsErrors+", "+MetricRuntimeOperationsDuration+")")
		if cause == "" {
			cause = fmt.Sprintf(g.what, text)
		}
	}
	if r := m.RelistDuration; r != nil && r.Buckets != nil && r.Count > 0 {
		last := r.Buckets[len(r.Buckets)-1]
		if n := r.Count - last.Cumulative; n > 0 {
			text := fmt.Sprintf("%d of %d relists took more than %s, the last bound of %s", n, r.Count, bound(last.UpperBound), MetricRelistDuration)
			h.Evidence = append(h.Evidence, text)
			if cause == "" {
				cause = "relists take long: " + text
			}
		}
	}
	if h.State == Healthy || h.State == HealthUnknown {
		return // the evidence stands; there is nothing to cause
	}
	if cause == "" && m.RuntimeOperations != nil {
		h.Evidence = append(h.Evidence, fmt.Sprintf("no CRI call the relist or the runtime-up check makes failed or took more than %vs since the kubelet started: the scrape does not say what stalls the relist (a call that hangs is counted only when it returns)", SlowCall))
	}
	h.Cause = cause
}

// opFault says how the calls of one operation type failed or were slow,
// counted since the kubelet started; "" when they did neither.
func opFault(op string, o RuntimeOperation) string {
	var parts []string
	if o.Errors != nil && *o.Errors > 0 {
		of := ""
		if o.Calls != nil {
			of = " of " + number(*o.Calls)
		}
		parts = append(parts, number(*o.Errors)+of+" calls failed")
	}
	if n, over, ok := o.Duration.above(SlowCall); ok && n > 0 {
		slowest := ""
		if lo, hi, ok := o.Duration.Quantile(o.Duration.Count); ok {
			slowest = fmt.Sprintf(", the slowest in (%s, %s]", bound(lo), bound(hi))
		}
		parts = append(parts, fmt.Sprintf("%d took more than %s%s", n, bound(over), slowest))
	}
	if len(parts) == 0 {
		return ""
	}
	return op + ": " + strings.Join(parts, ", ")
}

// bound prints a bucket's bound in seconds, to four digits: the
// kubelet's bounds are powers (119.20928955078125).
func bound(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + "s"
}
