package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/plegvet/plegvet/nodeverdict"
)

// keptFamilies are the metric families a kept capture holds: those the
// node verdict reads, and the runtime operations' counters and durations
// a health decision names as the stall's cause.
func keptFamilies() map[string]bool {
	m := map[string]bool{}
	fams := append(nodeverdict.Families(), "kubelet_runtime_operations_total", "kubelet_runtime_operations_errors_total", "kubelet_runtime_operations_duration_seconds")
	for _, f := range fams {
		for _, suffix := range []string{"", "_total", "_bucket", "_sum", "_count"} {
			m[f+suffix] = true
		}
	}
	return m
}

// TrimMetrics keeps the lines of the kept families (their HELP and TYPE
// lines, and of kubernetes_feature_enabled the EventedPLEG sample only),
// the bytes of those lines unchanged, after a first line "# scraped at
// RFC3339" giving when the scrape began.
func TrimMetrics(metrics []byte, scrapedAt time.Time) []byte {
	keep := keptFamilies()
	var b strings.Builder
	fmt.Fprintf(&b, "# scraped at %s\n", scrapedAt.UTC().Format(time.RFC3339Nano))
	for _, l := range strings.SplitAfter(string(metrics), "\n") {
		name := l
		if f := strings.Fields(l); len(f) > 2 && (f[1] == "HELP" || f[1] == "TYPE") {
			name = f[2]
		} else if i := strings.IndexAny(l, "{ "); i > 0 {
			name = l[:i]
		}
		if !keep[name] {
			continue
		}
		if name == nodeverdict.MetricFeatureEnabled && strings.Contains(l, "{") && !strings.Contains(l, `name="EventedPLEG"`) {
			continue
		}
		if strings.HasPrefix(name, "kubelet_runtime_operations_duration_seconds_") && !relistOperation(l) {
			continue
		}
		b.WriteString(l)
	}
	return []byte(b.String())
}

// relistOperation says whether a sample of the runtime operations'
// durations is kept: of the operations the relist issues (list_podsandbox,
// list_containers, and for the pods whose containers changed
// podsandbox_status, container_status) and of the runtime's status check,
// the sums and counts; of the relist's own list calls, the buckets too.
// The others' buckets would make a kept capture three times larger.
func relistOperation(sample string) bool {
	ops := []string{"list_podsandbox", "list_containers"}
	if !strings.HasPrefix(sample, "kubelet_runtime_operations_duration_seconds_bucket") {
		ops = append(ops, "podsandbox_status", "container_status", "status")
	}
	for _, op := range ops {
		if strings.Contains(sample, `operation_type="`+op+`"`) {
			return true
		}
	}
	return false
}

// KeptScrape is one kept scrape's entry in scrapes.json: when it was
// taken, the node's Ready condition and the active alerts read with it,
// and the kubelet's last log line naming the PLEG unhealthy by then.
type KeptScrape struct {
	File    string      `json:"file"`
	Start   time.Time   `json:"start"`
	End     time.Time   `json:"end"`
	Ready   Condition   `json:"ready"`
	Alerts  []Alert     `json:"alerts"`
	Kubelet *KeptLogged `json:"kubelet,omitempty"`
}

// KeptLogged is a kubelet log line and the PLEG message it holds.
type KeptLogged struct {
	Time    time.Time `json:"time"`
	Source  string    `json:"source"`
	Message string    `json:"message"`
}

// KeepScrapes writes the scrapes picks names under dir, trimmed, for fast unit
// tests: crictl.txt, the first's configz.json, each scrape's metrics as
// NNN.txt (TrimMetrics), kubelet.log (the log's lines about the runtime,
// the PLEG and the node's readiness, from the first pick to the last, of
// each kind the first and the last),
// and scrapes.json (KeptScrape per scrape, with the run's moments).
func (r *FaultRun) KeepScrapes(dir string, picks []int, tl *Timeline) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if len(picks) == 0 {
		return fmt.Errorf("no scrape to keep")
	}
	write := func(name string, data []byte) error { return os.WriteFile(filepath.Join(dir, name), data, 0o644) }
	if err := write("crictl.txt", r.Crictl); err != nil {
		return err
	}
	if err := write("configz.json", r.Configz); err != nil {
		return err
	}
	var kept []KeptScrape
	for _, i := range picks {
		o := r.Rounds[i].Observation
		name := fmt.Sprintf("%03d.txt", i)
		if err := write(name, TrimMetrics(o.Metrics, o.Start)); err != nil {
			return err
		}
		k := KeptScrape{File: name, Start: o.Start, End: o.End, Ready: o.Ready, Alerts: o.Alerts}
		if l, msg := r.KubeletSays(o.Start); l != nil {
			k.Kubelet = &KeptLogged{Time: l.Time, Source: l.Source, Message: msg}
		}
		kept = append(kept, k)
	}
	from, to := r.Rounds[picks[0]].Start, r.Rounds[picks[len(picks)-1]].End
	// A line repeats every second or so while the runtime is down: of
	// the lines alike but for their numbers, the first and the last say
	// it.
	var lines []LogLine
	first, last := map[string]int{}, map[string]int{}
	digits := regexp.MustCompile(`[0-9]+`)
	for _, l := range r.Log {
		if l.Time.Before(from) || l.Time.After(to) || !healthLine(l) {
			continue
		}
		key := l.Source + digits.ReplaceAllString(l.Text, "")
		if _, ok := first[key]; !ok {
			first[key] = len(lines)
		}
		last[key] = len(lines)
		lines = append(lines, l)
	}
	var log strings.Builder
	for i, l := range lines {
		key := l.Source + digits.ReplaceAllString(l.Text, "")
		if first[key] == i || last[key] == i {
			log.WriteString(l.Raw + "\n")
		}
	}
	if err := write("kubelet.log", []byte(log.String())); err != nil {
		return err
	}
	rows := tl.Rows()
	moments := make([]map[string]any, 0, len(rows))
	for _, row := range rows {
		m := map[string]any{"what": row.What, "evidence": row.Evidence}
		if !row.At.IsZero() {
			m["at"] = row.At
		}
		moments = append(moments, m)
	}
	data, err := json.MarshalIndent(map[string]any{"release": r.Release, "threshold": PLEGThreshold.String(),
		"moments": moments, "scrapes": kept}, "", "  ")
	if err != nil {
		return err
	}
	return write("scrapes.json", append(data, '\n'))
}

// healthLine keeps the log lines about the runtime's and the PLEG's
// health and the node's readiness.
func healthLine(l LogLine) bool {
	for _, s := range []string{PLEGUnhealthy, "container runtime is down", "Container runtime sanity check failed", "Node became not ready", "GenericPLEG: Unable to retrieve pods", "Skipping pod synchronization"} {
		if strings.Contains(l.Text, s) {
			return true
		}
	}
	return false
}

// Picks names the scrapes worth keeping: the first two and the last
// before the stop, those around each moment of the timeline, one a
// minute of the stall, and the last.
func (r *FaultRun) Picks(tl *Timeline) []int {
	set := map[int]bool{0: true, 1: true, len(r.Rounds) - 1: true}
	near := func(t time.Time) {
		if t.IsZero() {
			return
		}
		for i := range r.Rounds {
			if !r.Rounds[i].Start.Before(t) {
				set[i] = true
				if i > 0 {
					set[i-1] = true
				}
				return
			}
		}
	}
	for _, row := range tl.Rows() {
		near(row.At)
	}
	for t := tl.Stopped.Add(time.Minute); t.Before(tl.Started); t = t.Add(time.Minute) {
		near(t)
	}
	var picks []int
	for i := range set {
		if i >= 0 && i < len(r.Rounds) && r.Rounds[i].Err == nil {
			picks = append(picks, i)
		}
	}
	sort.Ints(picks)
	return picks
}
