// Command hungtable runs a fault scenario of the shared model: a kubelet
// registered to a real API server, EventedPLEG unset (or the gates of
// -gate), a pod running on containerd v2, and containerd's daemon frozen
// with SIGSTOP past the PLEG threshold (-fault stopped: stopped; -fault
// slow-call: one CRI method held by a proxy; -fault latency: every call
// delayed), with a real Prometheus scraping the kubelet in
// kube-prometheus's layout and evaluating the rules `plegvet alerts`
// writes. It writes, as Markdown, the moments measured, seconds after
// the fault, how each kubelet endpoint answered, what Prometheus saw per
// metrics_path, what kubectl pleg said, and where the kubelet's blocked
// handlers wait.
//
//	go run ./cmd/hungtable -k8s v1.37.2 -o ../../docs/runtime-hung.md -captures ../../nodeverdict/testdata/real
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// SlowMethod is the CRI method the slow-call fault holds.
const SlowMethod = "/runtime.v1.RuntimeService/ListPodSandbox"

func main() {
	release := flag.String("k8s", "v1.37.2", "the `release` whose kubelet is run")
	fault := flag.String("fault", "hung", "the `fault`: stopped (containerd stopped: the runtime dead), hung (containerd frozen), slow-call (one CRI method held by a proxy) or latency (every unary CRI call delayed by a proxy)")
	latencies := flag.String("latency", "6s,40s", "with -fault latency, the `rungs`: LATENCY[:LASTS],... each run in turn (LASTS by default 5m30s, 6m30s from 40s on)")
	out := flag.String("o", "", "the Markdown `file` to write (default: standard output)")
	captures := flag.String("captures", "", "a `directory` to keep the trimmed captures in, as DIR/RELEASE/runtime-hung (runtime-slow-call, runtime-slow-LATENCY)")
	all := flag.String("all", "", "a `directory` to keep everything the run saw in (rounds, dumps, Node objects, the kubelet's log), per fault")
	repo := flag.String("repo", filepath.Join("..", ".."), "the plegvet `repository` whose plegvet writes the rules")
	from := flag.String("from", "", "rewrite the document and its pictures from runs -all saved, `DIR[,DIR...]` (one per rung with -fault latency), without running a kubelet")
	img := flag.String("img", "", "the `directory` to write each run's picture to, as NAME.svg (default: img beside -o; none when writing to standard output)")
	pods := flag.Int("pods", 0, "with -fault latency, `N` static pods started at once as each rung begins: the overload, where every relist inspects them one after another (plegvet report says how many pass the PLEG's threshold at L = 1s)")
	gateFlag := flag.String("gate", "", "the kubelet's feature gates, `NAME=BOOL,...` (EventedPLEG=true: with -fault hung, containerd stays frozen past the gate-on threshold plegvet report reads from the release's code)")
	flag.Parse()
	gates, err := parseGates(*gateFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hungtable: -gate:", err)
		os.Exit(2)
	}
	var fs []harness.Fault
	switch *fault {
	case "stopped":
		fs = []harness.Fault{harness.Stopped(harness.PLEGThreshold)}
	case "hung":
		fs = []harness.Fault{harness.Frozen()}
	case "slow-call":
		fs = []harness.Fault{harness.Held(SlowMethod)}
	case "latency":
		if fs, err = rungs(*latencies, *pods); err != nil {
			fmt.Fprintln(os.Stderr, "hungtable: -latency:", err)
			os.Exit(2)
		}
	default:
		fmt.Fprintf(os.Stderr, "hungtable: -fault %q: want stopped, hung, slow-call or latency\n", *fault)
		os.Exit(2)
	}
	// A latency rung's scenario comes from its saved run with -from.
	if *from != "" && *fault == "latency" {
		fs = nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var b strings.Builder
	st := setting{release: *release, fault: *fault, out: *out, img: *img}
	if st.img == "" && *out != "" {
		st.img = filepath.Join(filepath.Dir(*out), "img")
	}
	if *from != "" {
		err = rewrite(ctx, &b, strings.Split(*from, ","), fs, gates, *repo, *captures, st)
	} else {
		err = table(ctx, &b, *release, *fault, fs, gates, *repo, *captures, *all, st)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hungtable:", err)
		os.Exit(1)
	}
	if err := harness.WriteDoc(*out, b.String()); err != nil {
		fmt.Fprintln(os.Stderr, "hungtable:", err)
		os.Exit(1)
	}
}

// parseGates reads -gate: NAME=BOOL,...
func parseGates(s string) (map[string]bool, error) {
	gates := map[string]bool{}
	if s == "" {
		return gates, nil
	}
	for _, g := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(g), "=")
		b, err := strconv.ParseBool(val)
		if !ok || name == "" || err != nil {
			return nil, fmt.Errorf("%q: want NAME=true or NAME=false", g)
		}
		gates[name] = b
	}
	return gates, nil
}

// rungs reads -latency: LATENCY[:LASTS],... with pods started at once
// as each begins.
func rungs(s string, pods int) ([]harness.Fault, error) {
	if pods < 0 {
		return nil, fmt.Errorf("-pods %d: want 0 or more", pods)
	}
	var fs []harness.Fault
	for _, r := range strings.Split(s, ",") {
		l, d, hasD := strings.Cut(strings.TrimSpace(r), ":")
		lat, err := time.ParseDuration(l)
		if err != nil || lat <= 0 {
			return nil, fmt.Errorf("%q: want a positive duration, e.g. 6s", l)
		}
		lasts := 5*time.Minute + 30*time.Second
		if lat >= 40*time.Second {
			lasts = 6*time.Minute + 30*time.Second
		}
		if hasD {
			if lasts, err = time.ParseDuration(d); err != nil || lasts <= 0 {
				return nil, fmt.Errorf("%q: want a positive duration, e.g. 5m30s", d)
			}
		}
		fs = append(fs, harness.Overload(lat, lasts, pods))
	}
	return fs, nil
}

// measured is one fault's run, for the document: run live, or loaded
// from a saved run's directory (saved, with what its save lost).
type measured struct {
	h       *harness.FaultScenario
	run     *harness.FaultRun
	tl      *harness.FaultTimeline
	saved   string
	lost    []string
	picture string // the picture's path from the document, "" without one
}

// setting is what the document says of how it was made.
type setting struct {
	release, fault, rules, out, img string
	rep                             *answer.Report
	why                             string
	from                            []string
}

func table(ctx context.Context, b *strings.Builder, release, fault string, fs []harness.Fault, gates map[string]bool, repo, captures, all string, st setting) error {
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	tr, err := harness.NewTableRun(ctx, "hungtable", release, repo, logf)
	if err != nil {
		return err
	}
	defer tr.Close()
	rules := tr.Rules
	rep, why := readReport(ctx, filepath.Join(tr.Dir, "plegvet"), release)
	if fault == "hung" || fault == "stopped" {
		// The fault outlasts the threshold the gates put in force, as
		// the release's code says.
		th, err := thresholdInForce(rep, gates)
		if err != nil {
			return fmt.Errorf("%s: %v", why, err)
		}
		fs = []harness.Fault{harness.FrozenPast(th)}
		if fault == "stopped" {
			fs = []harness.Fault{harness.Stopped(th)}
		}
	}
	plugin, probe, err := tr.KubectlPleg(ctx, repo)
	if err != nil {
		return err
	}
	names, err := alertNames(rules)
	if err != nil {
		return err
	}
	var runs []measured
	for _, f := range fs {
		h := tr.Parts.NewHung(release, tr.Kubelet, tr.APIServer, rules, logf)
		if f.Kind == harness.FaultLatency {
			h = tr.Parts.NewLatencyScenario(release, tr.Kubelet, tr.APIServer, rules, f.Latency, f.Least, logf)
		}
		if h.KubeStateMetrics, err = tr.Parts.Builder.KubeStateMetrics(ctx); err != nil {
			return err
		}
		h.Fault, h.Gates = f, gates
		// Recovery waits for the next relist, up to a period in force.
		h.MaxRecovery = max(h.MaxRecovery, periodInForce(rep, gates)+time.Minute)
		if f.Kind == harness.FaultStopped && rules != "" {
			// A dead runtime leaves /metrics answering: the stall rule
			// fires too.
			h.Alerts = harness.Alerts
		}
		h.KubectlPleg, h.Probe = plugin, probe
		run, err := h.Run(ctx)
		if err != nil {
			return err
		}
		m := measured{h: h, run: run, tl: run.Timeline(names)}
		if captures != "" && f.Kind == harness.FaultStopped {
			gtl := run.GaugeTimeline(names)
			if err := run.KeepScrapes(filepath.Join(captures, release, h.Name()), run.Picks(gtl), gtl); err != nil {
				return err
			}
		} else if captures != "" {
			if err := run.Keep(filepath.Join(captures, release, h.Name()), m.tl, f.Describe()); err != nil {
				return err
			}
		}
		if all != "" {
			if err := run.Save(filepath.Join(all, h.Name())); err != nil {
				return err
			}
		}
		runs = append(runs, m)
	}
	st.rules, st.rep, st.why = rules, rep, why
	return document(b, runs, st)
}

// alertNames are the alerts of a rules file, "" having none.
func alertNames(rules string) ([]string, error) {
	if rules == "" {
		return nil, nil
	}
	list, err := harness.ReadRules(rules)
	if err != nil {
		return nil, err
	}
	// A rule of several modes is one alert, timed once.
	var names []string
	seen := map[string]bool{}
	for _, r := range list {
		if !seen[r.Alert] {
			names = append(names, r.Alert)
		}
		seen[r.Alert] = true
	}
	return names, nil
}

// document draws the runs' pictures and writes the document.
func document(b *strings.Builder, runs []measured, st setting) error {
	if st.img != "" {
		if err := os.MkdirAll(st.img, 0o755); err != nil {
			return err
		}
		for i := range runs {
			m := &runs[i]
			svg, err := harness.Picture(m.run, m.tl)
			if err != nil {
				return err
			}
			file := filepath.Join(st.img, m.h.Name()+".svg")
			if err := os.WriteFile(file, svg, 0o644); err != nil {
				return err
			}
			if m.picture, err = filepath.Rel(filepath.Dir(st.out), file); err != nil {
				return err
			}
			m.picture = filepath.ToSlash(m.picture)
		}
	}
	if st.fault == "latency" {
		l, why := readLadder(st.rep, st.why, st.release)
		writeLatency(b, runs, st, l, why)
		return nil
	}
	write(b, runs[0], st)
	if st.fault == "stopped" {
		summarize(b, runs[0].run.GaugeTimeline(alertNamesOf(st.rules)))
	}
	return nil
}

// alertNamesOf is alertNames, none when the rules do not read.
func alertNamesOf(rules string) []string {
	names, _ := alertNames(rules)
	return names
}

// picture is the Markdown that shows a run's picture, "" without one.
func picture(m measured) string {
	if m.picture == "" {
		return ""
	}
	return fmt.Sprintf("![%s, seconds after the fault: the relist's age against the threshold, the endpoints, Ready, the alerts and the kubelet's lines](%s)\n\n", m.h.Name(), m.picture)
}

// provenance says, for a document rewritten from saved runs, from which
// and what their saves did not keep.
func provenance(b *strings.Builder, runs []measured) {
	if runs[0].saved == "" {
		return
	}
	var dirs, lost []string
	for _, m := range runs {
		dirs = append(dirs, "`"+m.saved+"`")
		for _, l := range m.lost {
			lost = append(lost, fmt.Sprintf("%s (%s)", l, filepath.Base(m.saved)))
		}
	}
	fmt.Fprintf(b, "Rewritten on %s with `-from`, from the runs `-all` saved in %s (the fault began %s), without running a kubelet.", time.Now().UTC().Format("2006-01-02"), strings.Join(dirs, ", "), runs[0].run.Frozen.UTC().Format(time.RFC3339))
	if len(lost) > 0 {
		fmt.Fprintf(b, " What those saves did not keep: %s.", strings.Join(lost, "; "))
	}
	b.WriteString("\n\n")
}

func at(t, ref time.Time) string {
	if t.IsZero() {
		return "not seen"
	}
	return fmt.Sprintf("%+.1fs", t.Sub(ref).Seconds())
}
