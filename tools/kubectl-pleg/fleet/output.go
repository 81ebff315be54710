// A run's output: each node's result as it comes, kept small (a table
// row, or the report encoded), then the table or the JSON or YAML list,
// the summary line and the exit code.

package fleet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/nodeverdict"
)

func run(ctx context.Context, client kubernetes.Interface, opts Options, output string, streams genericiooptions.IOStreams) int {
	var rows []row
	// The structured outputs keep each node's report encoded, never the
	// captures: a few kilobytes a node.
	var encoded []json.RawMessage
	counts := map[string]int{}
	// health counts the PLEGs not healthy, by state.
	health := map[string]int{}
	failed := 0
	total, err := Run(ctx, client, opts, func(i int, r *Result) {
		for _, w := range r.Warnings {
			fmt.Fprintf(streams.ErrOut, "kubectl pleg: %s: %s\n", inputfile.QuoteName(r.Node), inputfile.OneLine(w))
		}
		if r.Error != "" {
			failed++
			counts["error"]++
			fmt.Fprintf(streams.ErrOut, "kubectl pleg: %s: %s\n", inputfile.QuoteName(r.Node), inputfile.OneLine(r.Error))
		} else {
			counts[r.Verdict]++
			if st := r.Health.State; st == nodeverdict.Unhealthy || st == nodeverdict.AtRisk {
				health[st]++
			}
		}
		switch output {
		case "json", "yaml":
			data, err := json.Marshal(r)
			if err != nil {
				data, _ = json.Marshal(map[string]string{"node": r.Node, "error": "cannot encode the report: " + err.Error()})
			}
			for len(encoded) <= i {
				encoded = append(encoded, nil)
			}
			encoded[i] = data
		default:
			for len(rows) <= i {
				rows = append(rows, row{})
			}
			rows[i] = tableRow(r)
		}
	})
	if err != nil {
		fmt.Fprintf(streams.ErrOut, "kubectl pleg: %s\n", inputfile.OneLine(err.Error()))
		return exitFail
	}
	if total == 0 {
		fmt.Fprintln(streams.ErrOut, "kubectl pleg: no nodes")
		if output == "json" {
			fmt.Fprintln(streams.Out, "[]")
		} else if output == "yaml" {
			fmt.Fprintln(streams.Out, "[]")
		}
		return 0
	}
	summary := summaryLine(counts)
	if len(health) > 0 {
		summary += "; PLEG " + summaryLine(health)
	}
	switch output {
	case "json", "yaml":
		if err := writeStructured(streams.Out, encoded, output == "yaml"); err != nil {
			fmt.Fprintf(streams.ErrOut, "kubectl pleg: %v\n", err)
			return exitFail
		}
		fmt.Fprintln(streams.ErrOut, summary)
	default:
		writeTable(streams.Out, rows, output == "wide")
		fmt.Fprintln(streams.Out, summary)
	}
	if failed > 0 {
		return exitFail
	}
	if counts[nodeverdict.Inconsistent] > 0 || health[nodeverdict.Unhealthy] > 0 {
		return exitInconsistent
	}
	return 0
}

// writeStructured writes the encoded reports as one JSON array (or YAML
// sequence), in the order of the nodes.
func writeStructured(w io.Writer, encoded []json.RawMessage, asYAML bool) error {
	bw := bufio.NewWriter(w)
	if asYAML {
		// One report converted at a time, each written as an item of the
		// list (what converting the whole list writes): converting all of
		// them at once held 1 GiB for 5,000 nodes.
		if len(encoded) == 0 {
			bw.WriteString("[]\n")
		}
		for _, e := range encoded {
			out, err := yaml.JSONToYAML(e)
			if err != nil {
				return err
			}
			for i, line := range strings.SplitAfter(strings.TrimSuffix(string(out), "\n"), "\n") {
				if i == 0 {
					bw.WriteString("- ")
				} else if line != "\n" {
					bw.WriteString("  ")
				}
				bw.WriteString(line)
			}
			bw.WriteString("\n")
		}
		return bw.Flush()
	}
	bw.WriteString("[")
	for i, e := range encoded {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  ")
		var ind bytes.Buffer
		if err := json.Indent(&ind, e, "  ", "  "); err != nil {
			return err
		}
		bw.Write(ind.Bytes())
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}

// summaryLine counts the verdicts, most first: "97 generic, 3 fell-back";
// errors last.
func summaryLine(counts map[string]int) string {
	var names []string
	for k := range counts {
		if k != "error" {
			names = append(names, k)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	if n := counts["error"]; n > 0 {
		word := "errors"
		if n == 1 {
			word = "error"
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, word))
	}
	return strings.Join(parts, ", ")
}
