package harness

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SyncLoopMaxBackoff is the longest the kubelet's sync loop waits
// between two "Skipping pod synchronization" lines while its runtime
// errors last (max in syncLoop, pkg/kubelet/kubelet.go): a line older
// than that no longer says the kubelet is unhealthy.
const SyncLoopMaxBackoff = 5 * time.Second

// plegMessage is the PLEG's part of the kubelet's runtime errors: the
// generic PLEG's Healthy error after "PLEG is not healthy: ".
var plegMessage = regexp.MustCompile(PLEGUnhealthy + `: (pleg was last seen active [^;]+; threshold is [0-9.hmsuµn]+|pleg has yet to be successful)`)

// PLEGMessage returns the "PLEG is not healthy: ..." part of a log line
// or a condition message, or "".
func PLEGMessage(s string) string {
	return plegMessage.FindString(s)
}

// Timeline is when each thing happened in a run. An observation is nil,
// and a time zero, when the run did not see it.
type Timeline struct {
	Stopped, Started time.Time
	// LastRelist is the start of the kubelet's last successful relist
	// before the stall: the value kubelet_pleg_last_seen_seconds froze at.
	// Frozen is the first observation after the stop whose gauge equals
	// the one before it.
	LastRelist time.Time
	Frozen     *Observation
	// RuntimeDown and PLEGLogged are the kubelet's first lines after the
	// stop naming "container runtime is down" and the PLEG unhealthy.
	RuntimeDown, PLEGLogged *LogLine
	// ReadyFalse is the first Ready=False after the stop, ReadyPLEG the
	// first whose message names the PLEG; ReadyTrue the first True after
	// the start; Advances the first scrape after the start whose gauge
	// moved past LastRelist.
	ReadyFalse, ReadyPLEG, ReadyTrue, Advances *Observation
	Alerts                                     []AlertTimes
}

// AlertTimes is when an alert was first seen pending and firing after the
// stop, and first seen gone after that.
type AlertTimes struct {
	Name                      string
	Pending, Firing, Resolved *Observation
	ActiveAt                  time.Time // Prometheus's own activeAt
}

// LastSeen returns the scrape's kubelet_pleg_last_seen_seconds, or 0.
func (o *Observation) LastSeen() float64 {
	v, ok := Metric(o.Metrics, "kubelet_pleg_last_seen_seconds")
	if !ok || o.Err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f
}

// GaugeTimeline reads the run's moments by the last-seen gauge of
// answering scrapes (a dead runtime leaves /metrics answering), the
// fault's begin as Stopped and its end as Started; alerts are the alert
// names to time.
func (r *FaultRun) GaugeTimeline(alerts []string) *Timeline {
	tl := &Timeline{Stopped: r.Frozen, Started: r.Thawed}
	var prev float64
	frozen := 0.0
	for i := range r.Rounds {
		o := &r.Rounds[i].Observation
		v := o.LastSeen()
		switch {
		case o.Start.Before(r.Frozen):
		case o.Start.Before(r.Thawed):
			if tl.Frozen == nil && v != 0 && v == prev {
				tl.Frozen, frozen = o, v
				tl.LastRelist = time.Unix(int64(v), 0)
			}
			if tl.ReadyFalse == nil && o.Ready.Status == "False" {
				tl.ReadyFalse = o
			}
			if tl.ReadyPLEG == nil && strings.Contains(o.Ready.Message, PLEGUnhealthy) {
				tl.ReadyPLEG = o
			}
		default:
			if tl.Advances == nil && frozen != 0 && v > frozen {
				tl.Advances = o
			}
			if tl.ReadyTrue == nil && o.Ready.Status == "True" && o.Ready.At.After(r.Thawed) {
				tl.ReadyTrue = o
			}
		}
		if v != 0 {
			prev = v
		}
	}
	for i := range r.Log {
		l := &r.Log[i]
		if l.Time.Before(r.Frozen) {
			continue
		}
		if tl.RuntimeDown == nil && strings.Contains(l.Text, "container runtime is down") {
			tl.RuntimeDown = l
		}
		if tl.PLEGLogged == nil && strings.Contains(l.Text, PLEGUnhealthy) {
			tl.PLEGLogged = l
		}
	}
	for _, name := range alerts {
		at := AlertTimes{Name: name}
		for i := range r.Rounds {
			o := &r.Rounds[i].Observation
			if o.Start.Before(r.Frozen) || o.AlertsErr != nil {
				continue
			}
			a := findAlert(o.Alerts, name)
			switch {
			case a != nil && a.State == "pending" && at.Pending == nil:
				at.Pending, at.ActiveAt = o, a.ActiveAt
			case a != nil && a.State == "firing" && at.Firing == nil:
				at.Firing = o
				if at.ActiveAt.IsZero() {
					at.ActiveAt = a.ActiveAt
				}
			case a == nil && (at.Firing != nil || at.Pending != nil) && at.Resolved == nil:
				at.Resolved = o
			}
		}
		tl.Alerts = append(tl.Alerts, at)
	}
	return tl
}

func findAlert(active []Alert, name string) *Alert {
	for i := range active {
		if active[i].Name == name {
			return &active[i]
		}
	}
	return nil
}

// Row is one moment of a timeline, for a table.
type Row struct {
	What     string
	At       time.Time // zero: not seen
	Evidence string
}

// MomentStarted is the moment containerd started again, as Rows (and
// a kept scrapes.json) name it.
const MomentStarted = "containerd started again"

// Rows are the timeline's moments, in the order they happened, those
// not seen last.
func (tl *Timeline) Rows() []Row {
	obs := func(what string, o *Observation, at func(*Observation) time.Time, evidence func(*Observation) string) Row {
		if o == nil {
			return Row{What: what, Evidence: "not seen"}
		}
		return Row{What: what, At: at(o), Evidence: evidence(o)}
	}
	line := func(what string, l *LogLine) Row {
		if l == nil {
			return Row{What: what, Evidence: "not logged"}
		}
		return Row{What: what, At: l.Time, Evidence: fmt.Sprintf("%s %s", l.Source, l.Text)}
	}
	scraped := func(o *Observation) time.Time { return o.Start }
	ready := func(o *Observation) time.Time { return o.Ready.At }
	alerted := func(o *Observation) time.Time { return o.AlertsAt }
	cond := func(o *Observation) string {
		return fmt.Sprintf("Ready=%s %s: %s (lastTransitionTime %s)", o.Ready.Status, o.Ready.Reason, o.Ready.Message, o.Ready.Transition.Format(time.TimeOnly))
	}
	gauge := func(o *Observation) string {
		return fmt.Sprintf("kubelet_pleg_last_seen_seconds %.0f (%s)", o.LastSeen(), time.Unix(int64(o.LastSeen()), 0).UTC().Format(time.TimeOnly))
	}
	rows := []Row{
		{What: "containerd stopped (SIGTERM; its shim and the pod's container keep running)", At: tl.Stopped},
		{What: "the kubelet's last successful relist began (the value the gauge froze at)", At: tl.LastRelist, Evidence: "kubelet_pleg_last_seen_seconds"},
		obs("kubelet_pleg_last_seen_seconds seen to stop advancing", tl.Frozen, scraped, gauge),
		line("the kubelet first logs \"container runtime is down\"", tl.RuntimeDown),
		obs("Ready turns False", tl.ReadyFalse, ready, cond),
		line("the kubelet first logs \""+PLEGUnhealthy+"\"", tl.PLEGLogged),
		obs("Ready's message names the PLEG", tl.ReadyPLEG, ready, cond),
		{What: MomentStarted, At: tl.Started},
		obs("kubelet_pleg_last_seen_seconds advances again", tl.Advances, scraped, gauge),
		obs("Ready turns True", tl.ReadyTrue, ready, cond),
	}
	for _, a := range tl.Alerts {
		state := func(s string) func(*Observation) string {
			return func(o *Observation) string {
				if s == "" {
					return "no longer among /api/v1/alerts"
				}
				return fmt.Sprintf("%s, activeAt %s", s, a.ActiveAt.UTC().Format("15:04:05.000"))
			}
		}
		// An alert whose rule has no "for" fires at once: it is never
		// seen pending.
		if a.Pending != nil {
			rows = append(rows, obs("alert "+a.Name+" pending", a.Pending, alerted, state("pending")))
		}
		rows = append(rows, obs("alert "+a.Name+" firing", a.Firing, alerted, state("firing")),
			obs("alert "+a.Name+" resolved", a.Resolved, alerted, state("")))
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].At.IsZero() != rows[j].At.IsZero() {
			return rows[j].At.IsZero()
		}
		return rows[i].At.Before(rows[j].At)
	})
	return rows
}

// KubeletSays returns the kubelet's last log line naming the PLEG
// unhealthy at or before t, and that line's PLEG message; nil and "" when
// none. The line says the kubelet is unhealthy at t only when it is at
// most SyncLoopMaxBackoff older (and a second for the log's flush).
func (r *FaultRun) KubeletSays(t time.Time) (*LogLine, string) {
	var last *LogLine
	for i := range r.Log {
		if r.Log[i].Time.After(t) {
			break
		}
		if strings.Contains(r.Log[i].Text, PLEGUnhealthy) {
			last = &r.Log[i]
		}
	}
	if last == nil {
		return nil, ""
	}
	return last, PLEGMessage(last.Text)
}
