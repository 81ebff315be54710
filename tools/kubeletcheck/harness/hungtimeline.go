package harness

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// FaultTimeline is when each thing happened in a run of Hung; a nil
// round or a zero time is one the run did not see.
type FaultTimeline struct {
	Frozen, Thawed time.Time
	// LastGood is the last round before the first failed /metrics
	// request after the freeze whose /metrics answered; FirstTimeout the
	// first whose request timed out, FirstRefused the first refused;
	// MetricsBack the first after the thaw that answered again.
	LastGood, FirstFailed, FirstTimeout, FirstRefused, MetricsBack *Round
	// LastRelist is the latest kubelet_pleg_last_seen_seconds a
	// /metrics answer gave before the fault's end (a relist may have
	// come after it, before the fault).
	LastRelist time.Time
	// ReadyFalse is the first round after the freeze reading Ready False,
	// ReadyPLEG the first whose message names the PLEG, ReadyTrue the
	// first True after the thaw; HeartbeatStops the first round whose
	// Ready lastHeartbeatTime is that of the round before while the
	// one before that had moved.
	ReadyFalse, ReadyPLEG, ReadyTrue *Round
	// Logged are the kubelet's first lines after the freeze holding each
	// of LoggedTexts.
	Logged map[string]*LogLine
	// Down are, per Prometheus target (metrics_path), the first round
	// after the freeze whose up is 0, and the first after that whose up
	// is 1.
	Down, Up map[string]*Round
	Alerts   []AlertTimes
}

// LoggedTexts are the kubelet's lines a hung run times: the first after
// the freeze that holds each.
var LoggedTexts = []string{
	"DeadlineExceeded",
	"container runtime is down",
	PLEGUnhealthy,
	"Skipping pod synchronization",
	"Error updating node status",
	"Node became not ready",
	"error getting version info",
	"Error getting node",
}

// upOf returns the round's up (or scrape_duration_seconds) per
// metrics_path.
func (r *Round) upOf(query string) map[string]float64 {
	m := map[string]float64{}
	for _, s := range r.Series[query] {
		if v, ok := s.Value[1].(string); ok {
			f, _ := strconv.ParseFloat(v, 64)
			m[s.Metric["metrics_path"]] = f
		}
	}
	return m
}

// Up is the round's up per metrics_path; Durations its
// scrape_duration_seconds.
func (r *Round) Up() map[string]float64        { return r.upOf(Queries[0]) }
func (r *Round) Durations() map[string]float64 { return r.upOf(Queries[1]) }

// TargetError is the last scrape error Prometheus gives the target of
// path.
func (r *Round) TargetError(path string) string {
	for _, t := range r.Targets {
		if t.Labels["metrics_path"] == path {
			return t.LastError
		}
	}
	return ""
}

// Timeline reads the run's moments; alerts are the alert names to time.
func (r *FaultRun) Timeline(alerts []string) *FaultTimeline {
	tl := &FaultTimeline{Frozen: r.Frozen, Thawed: r.Thawed, Logged: map[string]*LogLine{}, Down: map[string]*Round{}, Up: map[string]*Round{}}
	for i := range r.Rounds {
		o := &r.Rounds[i]
		if v := o.LastSeen(); v != 0 && o.Start.Before(r.Thawed) && time.Unix(int64(v), 0).After(tl.LastRelist) {
			tl.LastRelist = time.Unix(int64(v), 0)
		}
	}
	for i := range r.Rounds {
		o := &r.Rounds[i]
		during := !o.Start.Before(r.Frozen) && o.Start.Before(r.Thawed)
		after := !o.Start.Before(r.Thawed)
		if o.Start.Before(r.Frozen) {
			continue
		}
		if during {
			if tl.FirstFailed == nil {
				if o.Err == nil {
					tl.LastGood = o
				} else {
					tl.FirstFailed = o
				}
			}
			if tl.FirstTimeout == nil && o.MetricsAnswer.TimedOut {
				tl.FirstTimeout = o
			}
			if tl.FirstRefused == nil && o.MetricsAnswer.Refused {
				tl.FirstRefused = o
			}
			if tl.ReadyFalse == nil && o.Ready.Status == "False" {
				tl.ReadyFalse = o
			}
			if tl.ReadyPLEG == nil && strings.Contains(o.Ready.Message, PLEGUnhealthy) {
				tl.ReadyPLEG = o
			}
		}
		if after {
			if tl.MetricsBack == nil && o.Err == nil {
				tl.MetricsBack = o
			}
			if tl.ReadyTrue == nil && o.Ready.Status == "True" && o.Ready.At.After(r.Thawed) {
				tl.ReadyTrue = o
			}
		}
		for path, up := range o.Up() {
			if tl.Down[path] == nil && up == 0 {
				tl.Down[path] = o
			}
			if tl.Down[path] != nil && tl.Up[path] == nil && up == 1 {
				tl.Up[path] = o
			}
		}
	}
	if tl.LastGood == nil && tl.FirstFailed != nil {
		for i := tl.FirstFailed.Index - 1; i >= 0; i-- {
			if r.Rounds[i].Err == nil {
				tl.LastGood = &r.Rounds[i]
				break
			}
		}
	}
	for i := range r.Log {
		l := &r.Log[i]
		if l.Time.Before(r.Frozen) {
			continue
		}
		for _, t := range LoggedTexts {
			if tl.Logged[t] == nil && strings.Contains(l.Text, t) {
				tl.Logged[t] = l
			}
		}
	}
	// The alerts' moments point at the run's own rounds.
	tl.Alerts = r.GaugeTimeline(alerts).Alerts
	return tl
}

// readyAgain is the row of Ready True after the fault: when it turned
// True during the fault (its lastTransitionTime before the fault's end),
// the row is that moment, not the first round after the fault that read it.
func readyAgain(tl *FaultTimeline) Row {
	o := tl.ReadyTrue
	if o == nil {
		return Row{What: "Ready turns True", Evidence: "not seen"}
	}
	c := o.Ready
	evidence := fmt.Sprintf("Ready=%s %s: %s (lastTransitionTime %s, lastHeartbeatTime %s)", c.Status, c.Reason, c.Message, c.Transition.Format(time.TimeOnly), c.Heartbeat.Format(time.TimeOnly))
	if c.Transition.After(tl.Frozen) && c.Transition.Before(tl.Thawed) {
		return Row{What: "Ready turns True again, during the fault (its lastTransitionTime)", At: c.Transition, Evidence: evidence}
	}
	return Row{What: "Ready turns True", At: c.At, Evidence: evidence}
}

// Rows are the timeline's moments in the order they happened, those not
// seen last.
func (tl *FaultTimeline) Rows(fault string) []Row {
	round := func(what string, o *Round, evidence func(*Round) string) Row {
		if o == nil {
			return Row{What: what, Evidence: "not seen"}
		}
		return Row{What: what, At: o.Start, Evidence: evidence(o)}
	}
	ready := func(what string, o *Round) Row {
		if o == nil {
			return Row{What: what, Evidence: "not seen"}
		}
		c := o.Ready
		return Row{What: what, At: c.At, Evidence: fmt.Sprintf("Ready=%s %s: %s (lastTransitionTime %s, lastHeartbeatTime %s)", c.Status, c.Reason, c.Message, c.Transition.Format(time.TimeOnly), c.Heartbeat.Format(time.TimeOnly))}
	}
	answer := func(o *Round) string {
		a := o.MetricsAnswer
		if a.Err != "" {
			return fmt.Sprintf("GET /metrics (client timeout %s) failed after %.2fs: %s", a.Timeout, a.Took.Seconds(), a.Err)
		}
		return fmt.Sprintf("GET /metrics: %d, %d bytes in %.2fs; kubelet_pleg_last_seen_seconds %.0f", a.Status, a.Bytes, a.Took.Seconds(), o.LastSeen())
	}
	rows := []Row{
		{What: fault, At: tl.Frozen},
		{What: "the kubelet's last successful relist began (the value kubelet_pleg_last_seen_seconds froze at)", At: tl.LastRelist, Evidence: "kubelet_pleg_last_seen_seconds"},
		round("the harness's last /metrics answer before the first failure", tl.LastGood, answer),
		round("the harness's first /metrics request that fails", tl.FirstFailed, answer),
		round("the harness's first /metrics request that times out", tl.FirstTimeout, answer),
		round("the harness's first /metrics request refused", tl.FirstRefused, answer),
		ready("Ready turns False", tl.ReadyFalse),
		ready("Ready's message names the PLEG", tl.ReadyPLEG),
		{What: "the fault ends", At: tl.Thawed},
		round("/metrics answers again", tl.MetricsBack, answer),
		readyAgain(tl),
	}
	for _, t := range LoggedTexts {
		l := tl.Logged[t]
		what := fmt.Sprintf("the kubelet first logs %q", t)
		if l == nil {
			rows = append(rows, Row{What: what, Evidence: "not logged"})
			continue
		}
		rows = append(rows, Row{What: what, At: l.Time, Evidence: Cut(l.Source+" "+l.Text, 400)})
	}
	paths := make([]string, 0, len(tl.Down))
	for p := range tl.Down {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		ev := func(o *Round) string {
			return fmt.Sprintf("up %v, scrape_duration_seconds %v; lastError %q", o.Up()[p], o.Durations()[p], o.TargetError(p))
		}
		rows = append(rows, round(fmt.Sprintf("Prometheus: up{metrics_path=%q} 0", p), tl.Down[p], ev),
			round(fmt.Sprintf("Prometheus: up{metrics_path=%q} 1 again", p), tl.Up[p], ev))
	}
	for _, a := range tl.Alerts {
		alerted := func(state string) func(*Observation) Row {
			return func(o *Observation) Row {
				if state == "" {
					return Row{At: o.AlertsAt, Evidence: "no longer among /api/v1/alerts"}
				}
				return Row{At: o.AlertsAt, Evidence: fmt.Sprintf("%s, activeAt %s", state, a.ActiveAt.UTC().Format("15:04:05.000"))}
			}
		}
		for _, s := range []struct {
			what, state string
			o           *Observation
		}{{"pending", "pending", a.Pending}, {"firing", "firing", a.Firing}, {"resolved", "", a.Resolved}} {
			if s.o == nil {
				if s.what != "pending" {
					rows = append(rows, Row{What: "alert " + a.Name + " " + s.what, Evidence: "not seen"})
				}
				continue
			}
			row := alerted(s.state)(s.o)
			row.What = "alert " + a.Name + " " + s.what
			rows = append(rows, row)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].At.IsZero() != rows[j].At.IsZero() {
			return rows[j].At.IsZero()
		}
		return rows[i].At.Before(rows[j].At)
	})
	return rows
}

// EndpointSummary is how one kubelet endpoint fared during the fault.
type EndpointSummary struct {
	Path                  string
	OK, TimedOut, Refused int
	Other                 int
	MaxOK                 time.Duration // the slowest answer
	FirstErr              string
	FirstFailAt, LastOKAt time.Time
	LastFailAt, FirstBack time.Time
}

// Endpoints sums up each endpoint's requests from the fault's start to
// its end (and when each first answered again after it).
func (r *FaultRun) Endpoints() []EndpointSummary {
	var paths []string
	if len(r.Rounds) > 0 {
		paths = append(paths, "/metrics")
		for _, a := range r.Rounds[0].Answers {
			paths = append(paths, a.Path)
		}
	}
	var out []EndpointSummary
	for _, p := range paths {
		s := EndpointSummary{Path: p}
		for i := range r.Rounds {
			a := r.Rounds[i].Answer(p)
			if a == nil || a.Start.Before(r.Frozen) {
				continue
			}
			if !a.Start.Before(r.Thawed) {
				if s.FirstBack.IsZero() && a.OK() {
					s.FirstBack = a.Start
				}
				continue
			}
			switch {
			case a.OK():
				s.OK++
				s.LastOKAt = a.Start
				if a.Took > s.MaxOK {
					s.MaxOK = a.Took
				}
				continue
			case a.TimedOut:
				s.TimedOut++
			case a.Refused:
				s.Refused++
			default:
				s.Other++
			}
			if s.FirstErr == "" {
				s.FirstErr = a.Err
				if a.Err == "" {
					s.FirstErr = fmt.Sprintf("status %d", a.Status)
				}
				s.FirstFailAt = a.Start
			}
			s.LastFailAt = a.Start
		}
		out = append(out, s)
	}
	return out
}

// PlegRow is the row kubectl pleg gave, as much of it as a run reads.
type PlegRow struct {
	Node   string `json:"node"`
	Error  string `json:"error"`
	Health struct {
		State   string `json:"state"`
		Runtime string `json:"runtime"`
		Message string `json:"message"`
	} `json:"health"`
	Condition *struct {
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"condition"`
}

// Rows reads kubectl pleg's JSON; nil when it printed none.
func (p PlegRun) Rows() []PlegRow {
	var rows []PlegRow
	if json.Unmarshal([]byte(p.Stdout), &rows) != nil {
		return nil
	}
	return rows
}

// Says is a run's row in a line: exit code, health, error.
func (p PlegRun) Says() string {
	rows := p.Rows()
	if len(rows) == 0 {
		return fmt.Sprintf("exit %d, no row: %s", p.Code, Cut(strings.TrimSpace(p.Stderr), 300))
	}
	r := rows[0]
	s := fmt.Sprintf("exit %d, health %s", p.Code, r.Health.State)
	if r.Health.Runtime != "" {
		s += " (runtime " + r.Health.Runtime + ")"
	}
	if r.Error != "" {
		s += ", error " + strconv.Quote(Cut(r.Error, 300))
	}
	if r.Condition != nil {
		s += fmt.Sprintf(", Ready %s", r.Condition.Status)
	}
	return s
}
