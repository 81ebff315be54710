package alerts

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/plegvet/plegvet/answer"
)

// Dark is not dead: a /metrics that does not answer while the same
// kubelet answers an endpoint that calls no runtime says the runtime is
// slow or hung (its collectors wait on CRI calls), not that the PLEG
// stopped. While it is dark the PLEG's health is the kubelet's own word:
// its node's Ready condition, which carries the PLEG's and the runtime's
// errors, as kube-state-metrics exports it.

// darkFor is how long /metrics must have failed every scrape, while the
// kubelet answered its alive endpoint, before a dark rule fires: a minute
// of failed scrapes is no passing overload.
const darkFor = time.Minute

// readyGrace is how long after its PLEG passes the threshold the node's
// Ready False reaches kube-state-metrics' series: the kubelet's node
// status update (10s by default), kube-state-metrics' scrape (30s in
// kube-prometheus) and readyStep.
const readyGrace = time.Minute

// readyStep is the resolution at which the rules look back for the last
// time the node was Ready.
const readyStep = 30 * time.Second

// downWindow is the window over which every runtime Status call must have
// failed for KubeletRuntimeDown: at least one scrape interval (30s or less
// in kube-prometheus), below the kubelet's 30s runtime-down threshold
// plus its node status update, so that it fires about when the kubelet
// declares the runtime down.
const downWindow = 30 * time.Second

// series are the PromQL selectors a scrape layout gives: which kubelets
// answer, which are dark, and their nodes' Ready condition.
type series struct {
	l answer.ScrapeLayout
	w time.Duration
	// picked: the dashboard's selectors, each for the node and cluster
	// its variables pick; the rules' select every kubelet.
	picked bool
}

// up selects the up series of the layout's targets at path ("": any).
func (s series) up(path string) string {
	sel := fmt.Sprintf("job=%q", s.l.Job)
	if path != "" && s.l.PathLabel != "" {
		sel += fmt.Sprintf(", %s=%q", s.l.PathLabel, path)
	}
	if s.picked {
		sel += fmt.Sprintf(", %s=\"$%s\", cluster=\"$cluster\"", s.nodeVar(), s.nodeVar())
	}
	return "up{" + sel + "}"
}

// nodeVar is the label (and the dashboard's variable) naming a kubelet's
// node: the layout's node label, else its instance.
func (s series) nodeVar() string {
	if s.l.NodeLabel == "" {
		return "instance"
	}
	return s.l.NodeLabel
}

// answering holds for a kubelet whose /metrics answered every scrape
// over answeringFor: the kubelet refreshes its last-seen gauge at its
// health checks, so the first scrape after a dark period shows it as it
// stood before the fault, and would read the fault's end as a stall.
func (s series) answering() string {
	return fmt.Sprintf("min_over_time(%s[%s]) == 1", s.up(s.l.MetricsPath), window(answeringFor))
}

// answeringFor is how long /metrics must have answered for the PLEG's
// rules to read its gauges: several of the kubelet's health checks
// (every node status update, 10s by default) and scrapes.
const answeringFor = time.Minute

// tellsDark reports whether the layout tells a dark /metrics (the
// kubelet alive) from a kubelet that is gone.
func (s series) tellsDark() bool {
	return s.l.Job != "" && s.l.PathLabel != "" && s.l.MetricsPath != "" && s.l.AlivePath != ""
}

// darkNow holds for a kubelet whose last /metrics scrape failed while its
// alive endpoint answered; darkOver, for one whose every /metrics scrape
// over d failed.
func (s series) darkNow() string {
	return fmt.Sprintf("(%s == 0 and %s %s == 1)", s.up(s.l.MetricsPath), join, s.up(s.l.AlivePath))
}

func (s series) darkOver(d time.Duration) string {
	return fmt.Sprintf("(max_over_time(%s[%s]) == 0) and %s (%s == 1)", s.up(s.l.MetricsPath), window(d), join, s.up(s.l.AlivePath))
}

// readsReady reports whether the layout names kube-state-metrics and the
// label joining its nodes with the kubelets.
func (s series) readsReady() bool {
	return s.l.NodeLabel != "" && s.l.KSMJob != ""
}

// nodeOn matches a kubelet's series with its node's.
func (s series) nodeOn() string {
	return "on(" + s.l.NodeLabel + ")"
}

// ready is the Ready condition's series with status (true, false), its
// node under the layout's node label.
func (s series) ready(status string) string {
	sel := fmt.Sprintf("kube_node_status_condition{job=%q, condition=\"Ready\", status=%q}", s.l.KSMJob, status)
	if s.picked {
		sel = strings.TrimSuffix(sel, "}") + ", node=\"$" + s.nodeVar() + "\", cluster=\"$cluster\"}"
	}
	if s.l.NodeLabel == "node" {
		return sel
	}
	return fmt.Sprintf("label_replace(%s, %q, \"$1\", \"node\", \"(.*)\")", sel, s.l.NodeLabel)
}

// notReady holds for a node whose Ready condition is False.
func (s series) notReady() string {
	return "(" + s.ready("false") + " == 1)"
}

// readyLastTrue is, per node, the last time within the window its Ready
// condition was True (0 when it was not within it).
func (s series) readyLastTrue() string {
	return fmt.Sprintf("(max by (%s) (max_over_time((timestamp(%s == 1))[%s:%s])) or max by (%s) (%s == 1) * 0)",
		s.l.NodeLabel, s.ready("true"), window(s.w), window(readyStep), s.l.NodeLabel, s.ready("false"))
}

// corroborated holds for a dark kubelet whose node is NotReady by the
// kubelet's own word and was not Ready since its PLEG passed at (last +
// at + readyGrace): a PLEG stalled since last would have turned Ready
// False by then, so a Ready True after it says the relist went on
// unseen (a slow runtime), and its later NotReady is the runtime's.
func (s series) corroborated(last string, at time.Duration) string {
	return fmt.Sprintf("%s %s and %s %s and %s (%s + %s >= %s group_left() %s)",
		join, s.darkNow(), s.nodeOn(), s.notReady(), join, last, seconds(at+readyGrace), s.nodeOn(), s.readyLastTrue())
}

// darkRules are the rules for a kubelet alive while its /metrics does not
// answer: KubeletMetricsDark (warning) while its node is Ready,
// KubeletRuntimeHung (critical) once it is NotReady. A kubelet that is
// gone (refused) or a node that is down answers neither, and is not
// theirs.
func darkRules(a *answer.Alerts, s series, scope string, hang *answer.RuntimeHang, lad *answer.Ladder) {
	why := ""
	switch {
	case hang == nil:
		why = "the report read nothing of what a hung runtime does to this tree's kubelet (health.runtimeHang): whether its /metrics waits on the runtime is not known"
	case !hang.DarkOnHang():
		why = "the tree's code shows no /metrics that waits on a hung runtime, so its failing scrape says nothing of the runtime: " + cmp.Or(hang.Unknown, strings.Join(hang.BoundedBelow(), "; "), "no collector registered on /metrics reaches a CRI call")
	case s.l.Job == "":
		why = "no scrape job is named: the rule reads the kubelet targets' up series"
	case !s.tellsDark():
		why = "the scrape layout names no label telling the kubelet's /metrics from an endpoint of it that calls no runtime: a dark /metrics cannot be told from a kubelet that is gone"
	}
	if why != "" {
		unwritten(a, answer.AlertMetricsDark, "%s", why)
		unwritten(a, answer.AlertRuntimeHung, "%s", why)
		return
	}
	sum := hang.Summary()
	dark := answer.AlertRule{
		Alert: nameDark, Kind: answer.AlertMetricsDark, Mode: answer.ModeAlways, Signal: answer.SignalScrape, Severity: "warning",
		Expr: s.darkOver(darkFor) + scope, At: darkFor.String(), Hang: &sum, Needs: []string{answer.NeedsUp, answer.NeedsAlive},
		Rungs: cite(lad, rungMetricsDark, rungRuntimeDown, rungPLEG, rungDeadline),
	}
	if !s.readsReady() {
		unwritten(a, answer.AlertRuntimeHung, "the scrape layout names no kube-state-metrics job or node label (-ksm-job, -node-label): a dark /metrics on a NotReady node cannot be told from one on a Ready node, and KubeletMetricsDark holds for both")
		a.Rules = append(a.Rules, dark)
		return
	}
	dark.Expr = fmt.Sprintf("%s unless %s %s%s", s.darkOver(darkFor), s.nodeOn(), s.notReady(), scope)
	dark.Needs = append(dark.Needs, answer.NeedsReady)
	a.Rules = append(a.Rules, dark, answer.AlertRule{
		Alert: nameHung, Kind: answer.AlertRuntimeHung, Mode: answer.ModeAlways, Signal: answer.SignalScrape, Severity: "critical",
		Expr: fmt.Sprintf("%s and %s %s%s", s.darkOver(darkFor), s.nodeOn(), s.notReady(), scope),
		At:   darkFor.String(), Hang: &sum, Needs: []string{answer.NeedsUp, answer.NeedsAlive, answer.NeedsReady},
		Rungs: cite(lad, rungRuntimeDown, rungDeadline),
	})
}

// runtimeDown is the rule for a runtime that fails its calls at once (it
// died, its socket refuses): /metrics answers, and no Status call of the
// kubelet's runtime status loop succeeded over downWindow while some were
// made. The kubelet declares the runtime down (Ready False, "container
// runtime is down") once none has succeeded for its runtime-down
// threshold, read from the tree. The errors counter is born with the
// first error, so a missing one counts as 0.
func runtimeDown(a *answer.Alerts, s series, scope string, hang *answer.RuntimeHang) {
	sum := hang.Summary()
	switch {
	case hang == nil || !sum.RuntimeDown.Resolved():
		unwritten(a, answer.AlertRuntimeDown, "the report read no runtime-down threshold from the tree (health.runtimeHang.runtimeDown): when failing Status calls turn the node NotReady is not known")
		return
	case s.l.Job == "":
		unwritten(a, answer.AlertRuntimeDown, "no scrape job is named")
		return
	}
	const total, errs = `kubelet_runtime_operations_total{operation_type="status"}`, `kubelet_runtime_operations_errors_total{operation_type="status"}`
	ok := func(offset string) string {
		return fmt.Sprintf("(sum by (instance, job) (%s%s) - sum by (instance, job) (%s%s or %s%s * 0))", total, offset, errs, offset, total, offset)
	}
	then := " offset " + window(downWindow)
	a.Rules = append(a.Rules, answer.AlertRule{
		Alert: nameDown, Kind: answer.AlertRuntimeDown, Mode: answer.ModeAlways, Signal: answer.SignalRuntimeErrors, Severity: "critical",
		Expr: fmt.Sprintf("%s == %s and %s (sum by (instance, job) (%s) > sum by (instance, job) (%s%s)) and %s %s%s",
			ok(""), ok(then), join, total, total, then, join, s.answering(), scope),
		At: downWindow.String(), Hang: &sum, Needs: []string{answer.NeedsKubelet, answer.NeedsUp},
	})
}
