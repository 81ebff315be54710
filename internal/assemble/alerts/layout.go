package alerts

import (
	"fmt"
	"strings"

	"github.com/prometheus/common/model"

	"github.com/plegvet/plegvet/answer"
)

// A LayoutProblem is a scrape layout field the rules cannot be written
// with: Field is its JSON key (scrape.pathLabel), Want what it must be.
type LayoutProblem struct {
	Field, Want string
}

// The labels the rules match on or write themselves: a layout label
// named like one would make a rule that can never match.
var ruleLabels = []string{"instance", "job", "le", "operation_type", "condition", "status", "name", "git_version"}

// CheckLayout says which of l's fields make rules Prometheus would reject
// or that could never match, the first problem of each field in order;
// none for a layout the rules can be written with.
func CheckLayout(l answer.ScrapeLayout) []LayoutProblem {
	var out []LayoutProblem
	bad := func(field, format string, args ...any) {
		out = append(out, LayoutProblem{Field: field, Want: fmt.Sprintf(format, args...)})
	}
	if l.Job == "" {
		bad("job", "the name of the job scraping the kubelets")
	} else if why := valueProblem(l.Job); why != "" {
		bad("job", "the name of the job scraping the kubelets, %s", why)
	}
	if why := labelProblem(l.PathLabel, ""); why != "" {
		bad("pathLabel", "the label telling the kubelet's endpoints apart, %s", why)
	}
	for _, p := range []struct{ field, v string }{{"metricsPath", l.MetricsPath}, {"alivePath", l.AlivePath}} {
		if why := valueProblem(p.v); why != "" {
			bad(p.field, "a value of the path label, %s", why)
		}
	}
	if l.AlivePath != "" && l.AlivePath == l.MetricsPath {
		bad("alivePath", "an endpoint of the kubelet that calls no runtime, not its /metrics (%q): a rule needing one up and the other down could never match", l.MetricsPath)
	}
	if why := labelProblem(l.NodeLabel, l.PathLabel); why != "" {
		bad("nodeLabel", "the label naming the kubelet's node on its targets, %s", why)
	}
	switch why := valueProblem(l.KSMJob); {
	case why != "":
		bad("ksmJob", "the name of the job scraping kube-state-metrics, %s", why)
	case l.KSMJob != "" && l.KSMJob == l.Job:
		bad("ksmJob", "the job scraping kube-state-metrics, not the kubelets' (%q)", l.Job)
	}
	return out
}

// labelProblem says why name cannot be a layout's label: a name
// Prometheus's legacy scheme rejects (as PromQL's unquoted label names
// and promtool do), a reserved one (dropped after relabelling), one the
// rules match on already, or other's; "" for a good one or none.
func labelProblem(name, other string) string {
	switch {
	case name == "":
		return ""
	case !model.LegacyValidation.IsValidLabelName(name):
		return fmt.Sprintf("a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*), not %q", name)
	case strings.HasPrefix(name, "__"):
		return fmt.Sprintf("a target label, not %q (a name starting with __ is dropped after relabelling)", name)
	case name == other:
		return fmt.Sprintf("not %q, the path label", name)
	}
	for _, r := range ruleLabels {
		if name == r {
			return fmt.Sprintf("not %q, a label the rules match on already", name)
		}
	}
	return ""
}

// valueProblem says why v cannot be a label value in a rule's matcher:
// a quote, brace, comma, backslash or control character would end the
// matcher or add another; "" for a good value or none.
func valueProblem(v string) string {
	if i := strings.IndexFunc(v, func(r rune) bool { return strings.ContainsRune("\"'`{}(),=~!\\", r) || r < ' ' || r == 0x7f }); i >= 0 {
		return fmt.Sprintf("without quotes, braces, parentheses, commas, operators or control characters, not %q", v)
	}
	return ""
}
