// Times a health cannot be computed from: a capture's time and a last
// relist further apart than a time.Duration holds.

package nodeverdict

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// durationHolds says whether at minus since is a time.Duration: Sub
// saturates beyond about 292 years, and an elapsed time computed from it
// would be the saturated one ("unhealthy 2562047h47m16.854775807s").
func durationHolds(since, at time.Time) bool {
	return since.Add(at.Sub(since)).Equal(at)
}

// tooFarApart is the evidence for a capture's time and a last relist
// (since) no duration spans.
func (d *decider) tooFarApart(since time.Time) string {
	return fmt.Sprintf("the capture's time %s (%s) and the time the PLEG was last seen active (%s) are more than %v (about 292 years) apart, beyond what a duration holds: not one kubelet's capture, or not the scrape's time",
		d.in.At.Format(time.RFC3339Nano), d.in.AtFrom, since.Format(time.RFC3339), time.Duration(math.MaxInt64).Truncate(time.Hour))
}

// saneHealth is h, unless its elapsed time was computed across more than
// a duration holds (a metrics request that got no answer, at -at in the
// year 9999, against the last scrape's relist): then the state is
// unknown, the evidence saying why, and no elapsed time, message or
// cause is given; the runtime's state stands.
func (d *decider) saneHealth(h Health) Health {
	at := d.in.At
	if h.Since == nil || at == nil || h.Elapsed == "" || durationHolds(*h.Since, *at) {
		return h
	}
	out := Health{State: HealthUnknown, Since: h.Since, Threshold: h.Threshold, Runtime: h.Runtime, Evidence: []string{}}
	for _, e := range h.Evidence {
		if !strings.Contains(e, h.Elapsed) {
			out.Evidence = append(out.Evidence, e)
		}
	}
	out.Evidence = append(out.Evidence, d.tooFarApart(*h.Since))
	return out
}
