package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
)

func runNode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("node", false)
	dir := fs.Lookup("C")
	dir.Usage, dir.DefValue = "the root of a Kubernetes checkout to read the gate and the periods from (default: the kubelet's own release, fetched)", ""
	var opts plegvet.NodeOptions
	fs.StringVar(&opts.Configz, "configz", "", "`file` holding kubectl get --raw /api/v1/nodes/NODE/proxy/configz (required)")
	fs.StringVar(&opts.Metrics, "metrics", "", "`file` holding kubectl get --raw /api/v1/nodes/NODE/proxy/metrics (required)")
	fs.StringVar(&opts.Crictl, "crictl", "", "`file` holding what crictl version prints on the node (crictl version > crictl.txt: its Name:  value lines; JSON or YAML of the same fields also do)")
	fs.BoolVar(&opts.SkipRuntimeSource, "skip-runtime-source", false, "with -crictl, do not fetch the runtime's source to read whether it can stream container events")
	fs.StringVar(&opts.KubeletVersion, "kubelet-version", "", "the kubelet's `version` (v1.36.1), when the metrics lack kubernetes_build_info or are wrong; with -k8s or -C and neither, a kubelet that does not say its release is read at the source's")
	useIndex := fs.Bool("index", true, "take the source's answer for a release from plegvet's index when it holds it (-index=false reads the release's source with the go command)")
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		if code == exitOK {
			fmt.Fprint(stdout, nodeExitHelp)
		}
		return code
	}
	if opts.Configz == "" || opts.Metrics == "" {
		return usageError(stderr, "node", "-configz FILE and -metrics FILE are required (see plegvet node -h)")
	}
	opts.Options = src.options(stderr)
	opts.SkipIndex = !*useIndex
	// Without -C or -k8s, the source is the kubelet's own release, not
	// the current directory.
	if !flagSet(fs, "C") {
		opts.Dir = ""
	}
	rep, err := plegvet.Node(ctx, opts)
	if errors.Is(err, plegvet.ErrKubeletVersionUnknown) {
		fmt.Fprintf(stderr, "plegvet node: %s; pass -kubelet-version v1.X.Y, or -k8s v1.X.Y to read the gate from the release the kubelet was built from\n", errorLine(err.Error()))
		return exitFailure
	}
	if err != nil {
		return fail(stderr, "node", err)
	}
	if err := src.relocate(rep, rep.Source); err != nil {
		return fail(stderr, "node", err)
	}
	code := answer("node", stdout, stderr, src.json, rep, func(w io.Writer) error { return writeNodeReport(w, rep) }, rep.Source)
	if code == exitOK && rep.Verdict == nodeverdict.Inconsistent {
		// A script tells an answer whose evidence disagrees from a clean
		// one by the exit code, as it tells findings.
		fmt.Fprintf(stderr, "plegvet node: inconsistent: %d of %d reasons disagree with %s\n", disagreeing(rep), len(rep.Reasons), rep.Expected)
		return exitFindings
	}
	return code
}

// nodeExitHelp follows the flags in plegvet node -h.
const nodeExitHelp = `
Exit status: 0 when the verdict is generic, evented, generic-with-event-hints
or fell-back; 3 when it is inconsistent (a reason disagrees with the verdict
the source predicts; the report is printed all the same); 1 when an input
could not be read, or the source not read in full; 2 for a bad command line.
`

func disagreeing(rep *plegvet.NodeReport) int {
	n := 0
	for _, r := range rep.Reasons {
		if r.Agrees != nil && !*r.Agrees {
			n++
		}
	}
	return n
}

// writeNodeReport prints the verdict first, then each reason over its
// evidence, labelled by whether it agrees with the verdict the source
// predicts (the report's Expected).
func writeNodeReport(w io.Writer, rep *plegvet.NodeReport) error {
	var b strings.Builder // one write at the end, whose error is returned
	line := func(label, text string) {
		fmt.Fprintf(&b, "%-13s%s\n", label, text)
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
		line("verdict", fmt.Sprintf("inconsistent: %s, %s; yet %d of %d reasons disagree", because, predicted(rep), disagreeing(rep), len(rep.Reasons)))
	case nodeverdict.FellBack:
		line("verdict", "fell-back: "+because+", but "+gaveUp(rep))
	case nodeverdict.GenericWithEventHints:
		line("verdict", fmt.Sprintf("generic-with-event-hints: %s, but this release's evented PLEG only asks the generic PLEG to relist; the generic PLEG alone emits pod lifecycle events", because))
	default:
		line("verdict", fmt.Sprintf("%s: %s, and no reason disagrees", rep.Verdict, because))
	}
	kubelet := cmp.Or(g.KubeletVersion, "unknown")
	switch {
	case rep.Source.Dir != "" && rep.Source.From == plegvet.FromIndex:
		kubelet += " (source " + rep.Source.Dir + ", from plegvet's index)"
	case rep.Source.Dir != "":
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
				line("", l)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// predicted says what the verdict the source predicts has the kubelet do,
// for an inconsistent headline.
func predicted(rep *plegvet.NodeReport) string {
	switch rep.Expected {
	case nodeverdict.Evented:
		return "so the evented PLEG should run, the generic PLEG relisting beside it" + every(rep.Relist.Expected)
	case nodeverdict.GenericWithEventHints:
		return "so the generic PLEG should relist" + every(rep.Relist.Expected) + ", with the evented PLEG's relist requests"
	case nodeverdict.FellBack:
		if rep.Relist.Fallback == "" {
			return "but the event stream fails as often as the source allows, so the evented PLEG should stop watching it, and the generic PLEG keep relisting" + every(rep.Relist.Expected)
		}
		return "but the event stream fails as often as the source allows, so the kubelet should relist" + every(rep.Relist.Expected) + ", as the source restores"
	}
	return "so the generic PLEG should relist alone" + every(rep.Relist.Expected)
}

// gaveUp says what the kubelet does once it gives the event stream up.
func gaveUp(rep *plegvet.NodeReport) string {
	if rep.Relist.Fallback == "" {
		// No period restored: the watcher stops, the relist keeps its own.
		return "the event stream fails as often as the source allows: the evented PLEG stops watching it, and the generic PLEG keeps relisting" + every(rep.Relist.Expected)
	}
	return "the event stream fails as often as the source allows, and the kubelet relists" + every(rep.Relist.Expected) + ", as the source restores"
}

func every(period string) string {
	if period == "" {
		return ""
	}
	return " every " + period
}
