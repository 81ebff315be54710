package render

import (
	"fmt"
	"strings"
	"time"

	"github.com/plegvet/plegvet/answer"
)

// DashboardUID is the dashboard's uid and its ConfigMap's name: one per
// minor, as the rules' group.
func DashboardUID(d *answer.Dashboard) string {
	return strings.ReplaceAll(d.Group, ".", "-")
}

// DashboardWords are the dashboard's title and description.
func DashboardWords(d *answer.Dashboard) (title, description string) {
	title = "PLEG and container runtime"
	if d.Minor != "" {
		title += " (" + d.Minor + ")"
	}
	return title, fmt.Sprintf("Written by plegvet alerts -o dashboard from the source of %s: each panel's queries are the rules' (group %s), drawn against the values the rules compare with.", treeName(d.Source), d.Group)
}

// DashboardConfigMapComment heads the dashboard's ConfigMap.
func DashboardConfigMapComment(d *answer.Dashboard) string {
	return fmt.Sprintf("The PLEG dashboard for the kubelets of %s, written by plegvet alerts.", treeName(d.Source))
}

// PanelWords are a panel's title, unit and description: what it shows,
// and each line with the constant it comes from and where that is
// declared (a link, for a release read with -positions url, as in the
// rules' annotations).
func PanelWords(d *answer.Dashboard, p *answer.Panel) (title, unit, description string) {
	in := treeName(d.Source)
	var b strings.Builder
	switch p.Kind {
	case answer.PanelRelistAge:
		title, unit = "Time since the last relist", "s"
		b.WriteString("How long ago the PLEG last relisted successfully, as the rules read it: time() minus kubelet_pleg_last_seen_seconds (its newest value within the rules' window, so that it keeps rising while /metrics is dark), or where a health check overwrites that gauge, the relist count's last rise. One series per mode; each is drawn against the threshold in force in its mode, where the kubelet's PLEG health check fails and its node turns NotReady, and the stall warning's line at two thirds of it.")
	case answer.PanelRelistDuration:
		title, unit = "Relist duration", "s"
		b.WriteString("The 0.5 and 0.99 quantiles of kubelet_pleg_relist_duration_seconds over 5m, per mode, against the relist period in force: a relist slower than its period delays the next, and the time since the last relist grows. Nothing while /metrics is dark; the relists that waited through a dark period show after it (at the histogram's highest finite bucket, 10s) only when it was shorter than the rate's 5m window, which otherwise holds no sample from before them.")
	case answer.PanelRuntimeLatency:
		title, unit = "Container runtime latency", "s"
		b.WriteString("The 0.9 quantile of kubelet_runtime_operations_duration_seconds over 2m for the calls every kubelet loop makes (status, version, list_podsandbox, list_containers), per operation, against the latency ladder's rungs: the per-call latency at which each of the kubelet's signals breaks.")
	case answer.PanelScrape:
		title, unit = "Kubelet endpoints answering", "none"
		fmt.Fprintf(&b, "Prometheus's up of the kubelet's targets of job %q. ", d.Scrape.Job)
		if d.Scrape.PathLabel != "" {
			fmt.Fprintf(&b, "Dark is not dead: %s at 0 while %s answers says the container runtime is slow or hung (its collectors wait on CRI calls), not that the kubelet or its PLEG stopped; KubeletMetricsDark fires after 1m of it.", d.Scrape.MetricsPath, d.Scrape.AlivePath)
		}
	case answer.PanelReady:
		title, unit = "Node Ready", "none"
		fmt.Fprintf(&b, "kube_node_status_condition{condition=\"Ready\", status=\"true\"} of job %q: 1 Ready, 0 NotReady. The kubelet's own word while /metrics is dark: its Ready condition carries the PLEG's and the runtime's errors.", d.Scrape.KSMJob)
	case answer.PanelEventedStream:
		title, unit = "EventedPLEG stream", "none"
		b.WriteString("With the EventedPLEG gate on: the evented PLEG's GetContainerEvents stream connections (kubelet_evented_pleg_connection_success_count) and failures (kubelet_evented_pleg_connection_error_count), against its retry limit.")
	case answer.PanelAlerts:
		title, unit = "PLEG and runtime alerts", "none"
		fmt.Fprintf(&b, "The rules' ALERTS series (%s): 1 while an alert is pending or firing.", strings.Join(d.Alerts, ", "))
	}
	for _, l := range p.Lines {
		b.WriteString("\n\n- " + lineWords(&l, in))
	}
	if p.Kind == answer.PanelRuntimeLatency && d.Ladder != nil {
		b.WriteString("\n\n" + ladderFrom(d.Ladder))
	}
	return title, unit, b.String()
}

// lineWords say what a line is and where its value comes from.
func lineWords(l *answer.PanelLine, in string) string {
	mode := ""
	if l.Mode != "" && l.Mode != answer.ModeAlways {
		mode = " (" + l.Mode + ")"
	}
	fires := ""
	if l.Alert != "" {
		fires = "; " + l.Alert + " fires past it"
	}
	switch {
	case l.Retries != nil:
		return fmt.Sprintf("retry limit%s: %s%s", mode, countIn(l.Retries, in), fires)
	case l.Rung != nil:
		if l.Alert != "" {
			return fmt.Sprintf("%s%s: %s, one period of its loop short of the %s rung (%s)%s", l.Name, mode, l.Rung.Warn, l.Rung.Name, l.Rung.Latency, fires)
		}
		at := l.Rung.Latency
		return fmt.Sprintf("%s%s: %s, %s%s", l.Name, mode, at, l.Rung.What, fires)
	case l.Name == "stalled":
		return fmt.Sprintf("stall warning%s: %v, two thirds of the threshold %s%s", mode, time.Duration(l.At*float64(time.Second)), citedIn(l.Value, in), fires)
	}
	return fmt.Sprintf("%s%s: %s%s", l.Name, mode, citedIn(l.Value, in), fires)
}

// ladderFrom names where the ladder's inputs were read.
func ladderFrom(l *answer.Ladder) string {
	var keys []string
	for _, k := range []string{"scrapeCalls", "runtimeDown", "statusPeriod", "deadline", "relistThreshold"} {
		if v, ok := l.Inputs.From[k]; ok {
			keys = append(keys, k+" "+v)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return "The ladder's inputs, read from the tree: " + strings.Join(keys, "; ") + "."
}
