package render

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// AlertsForm says what AlertRules writes.
type AlertsForm string

const (
	// RulesFile is a Prometheus rules file, as rule_files and promtool
	// check rules read it.
	RulesFile AlertsForm = "rules"
	// PrometheusRule is the prometheus-operator's object
	// (monitoring.coreos.com/v1) holding the same groups.
	PrometheusRule AlertsForm = "prometheusrule"
)

// The rules file's schema, as Prometheus reads it (rulefmt); plain
// structs so that plegvet need not depend on Prometheus itself.
type (
	ruleFile struct {
		Groups []ruleGroup `yaml:"groups"`
	}
	ruleGroup struct {
		Name  string `yaml:"name"`
		Rules []rule `yaml:"rules"`
	}
	rule struct {
		Alert       string            `yaml:"alert"`
		Expr        string            `yaml:"expr"`
		For         string            `yaml:"for,omitempty"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	}
	prometheusRule struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name   string            `yaml:"name"`
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec ruleFile `yaml:"spec"`
	}
)

// AlertRules writes a's rules in form, after a comment naming the tree
// and the rules it could not write.
func AlertRules(w io.Writer, a *answer.Alerts, form AlertsForm) error {
	g := ruleGroup{Name: a.Group, Rules: []rule{}}
	for i := range a.Rules {
		g.Rules = append(g.Rules, alertRule(a, &a.Rules[i]))
	}
	var doc any = ruleFile{Groups: []ruleGroup{g}}
	if form == PrometheusRule {
		pr := prometheusRule{APIVersion: "monitoring.coreos.com/v1", Kind: "PrometheusRule", Spec: ruleFile{Groups: []ruleGroup{g}}}
		pr.Metadata.Name = strings.ReplaceAll(a.Group, ".", "-")
		pr.Metadata.Labels = map[string]string{"app.kubernetes.io/managed-by": "plegvet"}
		doc = pr
	} else if form != RulesFile {
		return fmt.Errorf("form %q: want %s or %s", form, RulesFile, PrometheusRule)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# PLEG alerts for the kubelets of %s, written by plegvet alerts from the\n# thresholds in its source.\n", treeName(a.Source))
	if a.Minor != "" {
		fmt.Fprintf(&b, "# Each rule holds for kubelets whose kubernetes_build_info says %s.\n", a.Minor)
	}
	for _, m := range a.Unwritten {
		fmt.Fprintf(&b, "# Not written: %s: %s.\n", m.Part, m.Why)
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func alertRule(a *answer.Alerts, r *answer.AlertRule) rule {
	summary, description := alertWords(a, r)
	return rule{
		Alert: r.Alert, Expr: r.Expr, For: r.For,
		Labels:      map[string]string{"severity": r.Severity, "pleg_mode": r.Mode},
		Annotations: map[string]string{"summary": annotation(summary), "description": annotation(description)},
	}
}

// The template expressions plegvet itself writes into an annotation. The
// words are composed with these stand-ins, and annotation turns them into
// Prometheus template actions after escaping everything else: the text
// read from the tree (a message, a constant's name, a path) may hold "{{",
// which Prometheus would read as an action, and reject the file or expand
// it.
const (
	tplInstance = "\x00instance\x00"
	tplValue    = "\x00value\x00"
	tplDuration = "\x00duration\x00"
	tplOp       = "\x00op\x00"
)

var tplActions = strings.NewReplacer(tplInstance, "{{ $labels.instance }}", tplValue, "{{ $value }}", tplDuration, "{{ $value | humanizeDuration }}", tplOp, "{{ $labels.operation_type }}")

// annotation is words as a Prometheus template: every "{{" of the text
// printed as itself, the stand-ins made actions.
func annotation(words string) string {
	return tplActions.Replace(strings.ReplaceAll(words, "{{", `{{ "{{" }}`))
}

// alertWords are a rule's summary and description, in the kubelet's own
// terms, each value with its constant and declaration.
func alertWords(a *answer.Alerts, r *answer.AlertRule) (summary, description string) {
	in := treeName(a.Source)
	threshold, period := citedIn(r.Threshold, in), citedIn(r.Period, in)
	node := "The kubelet on " + tplInstance
	mode := modeWords(a, r)
	switch r.Kind {
	case answer.AlertStalled, answer.AlertUnhealthy:
		// since is how long no relist has succeeded when the rule fires:
		// last-seen's value, or the window in which none completed.
		since, over := tplDuration, tplDuration
		if r.Signal == answer.SignalRelistProgress {
			since, over = r.At, "more than "+r.At
		}
		if r.Kind == answer.AlertStalled {
			summary = fmt.Sprintf("PLEG relist stalled: no successful relist for %s; the kubelet's threshold is %s", since, valueOnly(r.Threshold))
			description = fmt.Sprintf("%s has had no successful relist for %s, two thirds of its PLEG health threshold %s%s. At %s %s", node, r.At, threshold, mode, valueOnly(r.Threshold), healthFailure(a, r))
		} else {
			summary = fmt.Sprintf("PLEG unhealthy: no successful relist for %s; the kubelet's threshold is %s", since, valueOnly(r.Threshold))
			if quote, _ := kubeletWords(a, r, over); quote != "" {
				summary = quote
				if a.Health.RuntimeErrors == nil { // the check's own message, without the name around it
					summary = fmt.Sprintf("PLEG unhealthy: its %q health check fails: %s", r.Check, quote)
				}
			}
			description = fmt.Sprintf("%s has had no successful relist for longer than its PLEG health threshold %s%s: %s", node, threshold, mode, healthFailure(a, r))
		}
		description += " " + signalWords(r)
	case answer.AlertEventedGaveUp:
		summary = fmt.Sprintf("EventedPLEG gave up: its CRI event stream failed %s times; the limit is %s", tplValue, valueCount(r.Retries))
		description = fmt.Sprintf("The evented PLEG of the kubelet on %s has seen its GetContainerEvents stream fail %s times (kubelet_evented_pleg_connection_error_count). %s", tplInstance, countIn(r.Retries, in), failureWords(r, in))
	case answer.AlertRelistSlow:
		summary = fmt.Sprintf("PLEG relist slow: its %s quantile duration is %s, above its period %s", "0.99", tplDuration, valueOnly(r.Period))
		description = fmt.Sprintf("%s relists every %s%s, and its relists take longer (0.99 quantile of kubelet_pleg_relist_duration_seconds over 5m) while its /metrics answers every scrape: each relist waits for the one before, and the time since the last successful relist grows towards the health threshold %s, where the node turns NotReady. A relist that waited on a hung runtime is not this alert's: after a scrape of /metrics failed, the rule holds off for 10m (KubeletMetricsDark, KubeletRuntimeHung and PLEGUnhealthy cover the dark period).", node, period, mode, citedIn(r.Threshold, in))
	case answer.AlertRuntimeHung:
		l := a.Scrape
		summary = fmt.Sprintf("Container runtime down or hung: the kubelet answers %s, its %s has not answered for %s, and its node is NotReady", l.AlivePath, l.MetricsPath, r.At)
		description = fmt.Sprintf("%s is alive (its %s target, which calls no container runtime, is up) while its %s target is down, and its node's Ready condition is False (kube_node_status_condition of job %q): %s %s %s Read from Prometheus's up series of job %q, told apart by the label %s, joined with the node by the label %s.",
			node, l.AlivePath, l.MetricsPath, l.KSMJob, hangWords(r.Hang, in), rungWords(r.Rungs), hungThen(a), l.Job, l.PathLabel, l.NodeLabel)
	case answer.AlertMetricsDark:
		l := a.Scrape
		summary = fmt.Sprintf("Kubelet %s dark: the kubelet answers %s, but its %s has not answered for %s; the container runtime is slow or hung", l.MetricsPath, l.AlivePath, l.MetricsPath, r.At)
		ready := "and its node is Ready (kube_node_status_condition of job " + fmt.Sprintf("%q", l.KSMJob) + " is not False)"
		if !slices.Contains(r.Needs, answer.NeedsReady) {
			ready = "(no kube-state-metrics job is named: whether its node is Ready is not read)"
		}
		description = fmt.Sprintf("%s is alive (its %s target, which calls no container runtime, is up) while its %s target is down, %s. %s Either cause darkens it: a slow runtime (every call answers, late: a scrape makes several calls one after another and passes the scrape timeout at a few seconds per call, long before the PLEG or Ready are harmed) or a hung one (every call waits its whole deadline). %s While it is dark nobody can see the relist, and no rule claims the PLEG stalled: the kubelet's own word is its Ready condition, which carries the PLEG's and the runtime's errors; PLEGUnhealthy and KubeletRuntimeHung fire once it turns False. Read from Prometheus's up series of job %q, told apart by the label %s.",
			node, l.AlivePath, l.MetricsPath, ready, capitalize(hangWords(r.Hang, in)), rungWords(r.Rungs), l.Job, l.PathLabel)
	case answer.AlertRuntimeDown:
		summary = fmt.Sprintf("Container runtime down: none of the kubelet's runtime Status calls succeeded over the last %s", r.At)
		description = fmt.Sprintf("%s answers on /metrics, and every Status call its runtime status loop made over the last %s failed (kubelet_runtime_operations_errors_total against kubelet_runtime_operations_total, operation_type=\"status\"): the runtime refuses its calls (it died, or its socket is gone). %s", node, r.At, downWords(r.Hang, in))
	case answer.AlertRuntimeSlow:
		summary = fmt.Sprintf("Container runtime slow: %s calls take %s (0.9 quantile over 2m), past the latency at which the kubelet declares the runtime down (%s)", tplOp, tplDuration, r.At)
		description = fmt.Sprintf("%s answers on /metrics, and the 0.9 quantile of its %s calls to the runtime (kubelet_runtime_operations_duration_seconds) over 2m has stayed above %s for %s: at that latency the node's Ready starts to flap to False (\"container runtime is down\"). %s A runtime slow in every call darkens /metrics first (KubeletMetricsDark); this rule sees the calls a scrape does not make. It holds off while any scrape of /metrics failed over its window, so that calls that waited through a dark period never fire it after.",
			node, tplOp, r.At, r.For, rungWords(r.Rungs))
	}
	return summary, description
}

// hangWords say, from the tree's code, why a hung runtime darkens
// /metrics: the chain from a collector to a CRI call, the calls' deadline
// and the node status update's wait.
func hangWords(h *answer.HangSummary, in string) string {
	var b strings.Builder
	b.WriteString("that scrape waits on collectors registered on /metrics that call the container runtime")
	if len(h.Chain) > 0 {
		steps := make([]string, len(h.Chain))
		for i, s := range h.Chain {
			steps[i] = fmt.Sprintf("%s (%s)", s.Func, srcpos.Line(&s.Pos))
		}
		fmt.Fprintf(&b, " (%s, in %s)", strings.Join(steps, " -> "), in)
	}
	if len(h.CRIMethods) > 0 {
		fmt.Fprintf(&b, ", reaching %s", strings.Join(h.CRIMethods, ", "))
	}
	b.WriteString(", so the scrape waits as long as those calls do")
	if d := h.Deadline; d != nil && d.Value != "" {
		dl := d.Value
		if d.Const != "" {
			dl += " = " + d.Const
		}
		if d.Decl != nil {
			dl += " (" + srcpos.Line(d.Decl) + ")"
		}
		if h.Setting != "" {
			dl += ", the setting " + h.Setting
		}
		fmt.Fprintf(&b, "; each waits its whole deadline, %s", dl)
	}
	b.WriteString(".")
	if n := h.NodeStatus; n != nil {
		fmt.Fprintf(&b, " The node status update waits on %s too (handed to %s at %s): a hung runtime delays the node's status as well", n.Method, n.Setter, srcpos.Line(&n.Pos))
		if rd := h.RuntimeDown; rd != nil && rd.Value != "" {
			fmt.Fprintf(&b, ", and the kubelet declares the runtime down once no Status call has succeeded for %s", rd.Value)
		}
		b.WriteString(".")
	}
	return b.String()
}

// downWords say, from the tree's code, when failing Status calls turn the
// node NotReady.
func downWords(h *answer.HangSummary, in string) string {
	if h == nil || h.RuntimeDown == nil {
		return ""
	}
	w := fmt.Sprintf("The kubelet declares the runtime down once no Status call has succeeded for %s", citedIn(h.RuntimeDown, in))
	if p := h.StatusPeriod; p != nil && p.Value != "" {
		w += fmt.Sprintf(" (it asks every %s)", citedIn(p, in))
	}
	return w + `: its node's Ready condition turns False with "container runtime is down".`
}

// rungWords say what the latency ladder, read from the tree's code, says
// of each rung a rule names; "" without a ladder.
func rungWords(rungs []answer.LadderRung) string {
	if len(rungs) == 0 {
		return "The latency ladder (health.ladder) was not read: at which per-call latency each part of the kubelet breaks is not known."
	}
	parts := make([]string, len(rungs))
	for i, r := range rungs {
		parts[i] = fmt.Sprintf("%s at %s per call (%s)", r.Name, r.Latency, r.What)
	}
	return "The latency ladder of this release (health.ladder): " + strings.Join(parts, "; ") + "."
}

// capitalize upper-cases words' first letter.
func capitalize(words string) string {
	if words == "" {
		return ""
	}
	return strings.ToUpper(words[:1]) + words[1:]
}

// hungThen says what follows a dark /metrics on a NotReady node, from the
// thresholds the tree's rules read.
func hungThen(a *answer.Alerts) string {
	for _, r := range a.Rules {
		if r.Kind == answer.AlertUnhealthy && r.Dark != "" && (r.Mode == answer.ModeAlways || r.Mode == answer.ModeGateOff) {
			if d, ok := r.Threshold.Duration(); ok {
				return fmt.Sprintf("If no relist succeeds meanwhile (a hung runtime), the PLEG turns unhealthy %s after its last successful relist (%s), and PLEGUnhealthy fires then from the last value of kubelet_pleg_last_seen_seconds, with this Ready False as the kubelet's word.", d, citedIn(r.Threshold, treeName(a.Source)))
			}
		}
	}
	return "Whether the relist goes on meanwhile cannot be seen."
}

// healthFailure says, in the kubelet's words read from the tree, what it
// does once r's threshold is passed: the health check that fails and its
// message, then the sync loop's skip and the Ready condition; what could
// not be read, it says so.
func healthFailure(a *answer.Alerts, r *answer.AlertRule) string {
	h := a.Health
	if h == nil {
		return "its PLEG health check fails; the kubelet's words, and what it then does, could not be read: the report read no health rule from the tree."
	}
	var b strings.Builder
	with := "its message"
	switch quote, at := kubeletWords(a, r, "..."); {
	case quote != "":
		fmt.Fprintf(&b, "its %q health check fails with %q (%s).", r.Check, quote, at)
		if h.RuntimeErrors == nil {
			b.WriteString(" How the kubelet words a failed check around its message could not be read.")
		}
		with = "that message"
	case r.Check != "" && r.Message != nil:
		fmt.Fprintf(&b, "its %q health check fails with an error formatted %q (%s), whose arguments plegvet cannot fill.", r.Check, r.Message.Format, srcpos.Line(&r.Message.Pos))
	case r.Check != "":
		fmt.Fprintf(&b, "its %q health check fails; the kubelet's words could not be read: plegvet found no error the check returns once its threshold is passed.", r.Check)
	case h.Unknown != "":
		fmt.Fprintf(&b, "its PLEG health check fails; the kubelet's words could not be read: %s.", h.Unknown)
	default:
		fmt.Fprintf(&b, "its PLEG health check fails; the kubelet's words could not be read: no health check registered in this mode compares the time since the last successful relist with %s.", valueOnly(r.Threshold))
	}
	var then, unfound []string
	if s := h.SyncLoopSkip; s != nil {
		then = append(then, fmt.Sprintf("the sync loop logs %q and skips pod synchronization (%s)", s.Message, srcpos.Line(&s.Pos)))
	} else {
		unfound = append(unfound, "where the sync loop skips pod synchronization")
	}
	if w := h.ReadyCondition; w != nil {
		then = append(then, fmt.Sprintf("the node's Ready condition turns False with %s (%s)", with, srcpos.Line(&w.Pos)))
	} else {
		unfound = append(unfound, "where the failed checks reach the node's Ready condition")
	}
	if len(then) > 0 {
		fmt.Fprintf(&b, " Then %s.", strings.Join(then, ", and "))
	}
	if len(unfound) > 0 {
		fmt.Fprintf(&b, " plegvet could not read %s.", strings.Join(unfound, " or "))
	}
	return b.String()
}

// kubeletWords is the message the kubelet gives when r's health check
// fails, its format filled with elapsed and r's threshold as the kubelet's
// time.Duration prints it (in that order, as every release passes them:
// the arguments themselves are not read), and where it was read; "" when
// the check, its message or the threshold was not read, or the format
// takes other arguments (fmt marks a missing, extra or ill-typed one with
// "%!").
func kubeletWords(a *answer.Alerts, r *answer.AlertRule, elapsed string) (quote, at string) {
	threshold, ok := r.Threshold.Duration()
	if r.Check == "" || r.Message == nil || a.Health == nil || !ok {
		return "", ""
	}
	re := a.Health.RuntimeErrors
	for _, args := range [][]any{{elapsed, threshold}, nil} {
		if quote = KubeletMessage(re, r.Check, r.Message, args...); !strings.Contains(quote, "%!") {
			break
		}
		quote = ""
	}
	if quote == "" {
		return "", ""
	}
	at = srcpos.Line(&r.Message.Pos)
	if re != nil {
		at += ", worded by " + srcpos.Line(&re.Pos)
	}
	return quote, at
}

// modeWords says which threshold is in force for the rule: ", with
// EventedPLEG off" and so on; "" when the tree has one.
func modeWords(a *answer.Alerts, r *answer.AlertRule) string {
	switch r.Mode {
	case answer.ModeGateOff:
		return fmt.Sprintf(", in force with %s off (kubernetes_feature_enabled{name=%q} not 1)", a.Gate, a.Gate)
	case answer.ModeGateOn:
		return fmt.Sprintf(", in force with %s on until the evented PLEG gives up its stream", a.Gate)
	case answer.ModeFallback:
		return fmt.Sprintf(", in force with %s on once the evented PLEG has fallen back to the generic relist (kubelet_evented_pleg_connection_error_count reached the stream retry limit)", a.Gate)
	}
	return ""
}

// signalWords says what the rule reads, and where last-seen cannot show a
// stall, why and what it reads instead.
func signalWords(r *answer.AlertRule) string {
	var w string
	if r.Signal == answer.SignalLastSeen {
		w = "Read from kubelet_pleg_last_seen_seconds, which the kubelet sets to the start of its last successful relist each time it polls its health checks; its newest value within the last " + lastWindow(r.Expr) + "."
	} else {
		w = fmt.Sprintf(`Here the %q health check registered on the evented PLEG (%s) sets kubelet_pleg_last_seen_seconds to the time of each health poll, so last-seen cannot show a stalled relist; this rule reads instead that no relist completed over %s (kubelet_pleg_relist_duration_seconds_count the same as it was then, each its last sample, so that a dark period between is bridged), or that every list_podsandbox call failed over it (kubelet_runtime_operations_errors_total), either of which means no relist succeeded.`,
			r.HiddenBy.Name, srcpos.Line(&r.HiddenBy.Pos), r.At)
	}
	switch {
	case r.Dark != "":
		return w + " It holds while the kubelet's /metrics answers; while /metrics is dark (a slow or hung runtime makes it wait) only with the kubelet's own word: its node's Ready condition False (kube-state-metrics), and not True since the threshold passed after the last relist seen (a Ready True after that says the relist went on unseen)."
	case r.Kind == answer.AlertStalled:
		return w + " It holds while the kubelet's /metrics answers: while it is dark nobody can see the relist, and KubeletMetricsDark speaks instead."
	}
	return w + " It holds while the kubelet's /metrics answers."
}

// lastWindow is the window of max_over_time in a last-seen rule's expr.
func lastWindow(expr string) string {
	_, rest, ok := strings.Cut(expr, "max_over_time(kubelet_pleg_last_seen_seconds[")
	w, _, ok2 := strings.Cut(rest, "]")
	if !ok || !ok2 {
		return "window"
	}
	return w
}

// failureWords says what the evented PLEG does after its last allowed
// stream failure.
func failureWords(r *answer.AlertRule, in string) string {
	f := r.OnStreamFailure
	switch {
	case f == nil || f.Action == "unknown":
		return "What it does then could not be read from the source."
	case f.Action == "restore-generic-relist" && r.Fallback != nil:
		return fmt.Sprintf("It has fallen back to the generic relist (%s): relist every %s, health threshold %s. The node gets no container events from the runtime until the kubelet restarts; check the runtime's CRI event stream.", srcpos.Line(f.Pos), citedIn(r.Fallback, in), citedIn(r.FallbackThreshold, in))
	case f.Action == "stop-watching":
		return fmt.Sprintf("It has stopped watching the stream (%s): relist goes on at its period, without the stream's relist requests, until the kubelet restarts; check the runtime's CRI event stream.", srcpos.Line(f.Pos))
	}
	return fmt.Sprintf("It then does %s (%s).", f.Action, srcpos.Line(f.Pos))
}

// citedIn is a value with its evidence, the declaration's position
// followed by the tree read: "3m0s = name (file:line in tree)".
func citedIn(v *answer.Value, in string) string {
	if !v.Resolved() || v.Decl == nil {
		return Value(v, Cited)
	}
	return Evidence(v.Value, v.Const, nil) + " (" + srcpos.Line(v.Decl) + " in " + in + ")"
}

// countIn is a retry count as citedIn words a value.
func countIn(r *answer.RetryCount, in string) string {
	if r == nil || r.Value == nil || r.Decl == nil {
		return Count(r)
	}
	return Evidence(fmt.Sprint(*r.Value), r.Const, nil) + " (" + srcpos.Line(r.Decl) + " in " + in + ")"
}

// treeName names the tree read: k8s.io/kubernetes@v1.36.5, or "the
// checkout DIR".
func treeName(src answer.Source) string {
	if src.KubernetesVersion != "" && strings.Contains(src.Dir, "@") {
		return src.Dir
	}
	return "the checkout " + src.Dir
}

// valueCount is a retry count without its declaration: "5 =
// eventedPlegMaxStreamRetries".
func valueCount(r *answer.RetryCount) string {
	if r == nil || r.Value == nil {
		return Count(r)
	}
	return Evidence(fmt.Sprint(*r.Value), r.Const, nil)
}

// valueOnly is a value as read, without its evidence.
func valueOnly(v *answer.Value) string {
	return Value(v, Cell)
}
