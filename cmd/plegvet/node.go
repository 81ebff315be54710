package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
)

func runNode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	var src sourceFlags
	src.register(fs, false)
	dir := fs.Lookup("C")
	dir.Usage, dir.DefValue = "the root of a Kubernetes checkout to read the gate and the periods from (default: the kubelet's own release, fetched)", ""
	var opts plegvet.NodeOptions
	fs.StringVar(&opts.Configz, "configz", "", "`file` holding kubectl get --raw /api/v1/nodes/NODE/proxy/configz (required)")
	fs.StringVar(&opts.Metrics, "metrics", "", "`file` holding kubectl get --raw /api/v1/nodes/NODE/proxy/metrics (required)")
	fs.StringVar(&opts.Crictl, "crictl", "", "`file` holding crictl version -o json, run on the node")
	fs.BoolVar(&opts.SkipRuntimeSource, "skip-runtime-source", false, "with -crictl, do not fetch the runtime's source to read whether it can stream container events")
	fs.StringVar(&opts.KubeletVersion, "kubelet-version", "", "the kubelet's `version` (v1.36.1), when the metrics lack kubernetes_build_info or are wrong")
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	if opts.Configz == "" || opts.Metrics == "" {
		fmt.Fprintln(stderr, "plegvet node: -configz FILE and -metrics FILE are required (see plegvet node -h)")
		return exitUsage
	}
	opts.Options = src.options()
	// Without -C or -k8s, the source is the kubelet's own release, not
	// the current directory.
	dirSet := flagSet(fs, "C")
	if !dirSet {
		opts.Dir = ""
	}
	rep, err := plegvet.Node(ctx, opts)
	if err != nil {
		return fail(stderr, "node", err)
	}
	return answer("node", stdout, stderr, src.json, rep, func(w io.Writer) error { return writeNodeReport(w, rep) }, rep.Source)
}

// writeNodeReport prints the verdict first, then each reason over its
// evidence, labelled by whether it agrees with the gate.
func writeNodeReport(w io.Writer, rep *plegvet.NodeReport) error {
	var b strings.Builder
	const indent = "             "
	line := func(label, text string) {
		fmt.Fprintf(&b, "%-13s%s\n", label, text)
	}
	disagree := 0
	for _, r := range rep.Reasons {
		if r.Agrees != nil && !*r.Agrees {
			disagree++
		}
	}
	g := rep.Gate
	state := "off"
	if g.Value {
		state = "on"
	}
	because := fmt.Sprintf("%s is %s", g.Name, state)
	if !g.Built {
		because = "this kubelet's source builds no evented PLEG"
	}
	switch rep.Verdict {
	case nodeverdict.Inconsistent:
		line("verdict", fmt.Sprintf("inconsistent: %s, so the kubelet should run the %s PLEG, but %d of %d reasons disagree", because, rep.Configured, disagree, len(rep.Reasons)))
	case nodeverdict.FellBack:
		line("verdict", fmt.Sprintf("fell-back: %s, but the event stream failed as often as the source allows, and the kubelet relists every %s", because, rep.Relist.Expected))
	case nodeverdict.GenericWithEventHints:
		line("verdict", fmt.Sprintf("generic-with-event-hints: %s, but this release's evented PLEG only asks the generic PLEG to relist; the generic PLEG alone emits pod lifecycle events", because))
	default:
		line("verdict", fmt.Sprintf("%s: %s, and no reason disagrees", rep.Verdict, because))
	}
	kubelet := g.KubeletVersion
	if rep.Source.Dir != "" {
		kubelet += " (source " + rep.Source.Dir + ")"
	}
	line("kubelet", kubelet)
	if rt := rep.Runtime; rt != nil {
		line("runtime", strings.TrimSpace(fmt.Sprintf("%s %s, CRI %s", rt.Name, rt.Version, rt.APIVersion)))
	}
	b.WriteString("\n")
	for _, r := range rep.Reasons {
		label := "note"
		switch {
		case r.Agrees == nil:
		case *r.Agrees:
			label = "agrees"
		default:
			label = "DISAGREES"
		}
		line(label, r.Claim)
		if r.Evidence != "" {
			for _, l := range wrapCell(r.Evidence, 2*cellWidth) {
				b.WriteString(indent + l + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
