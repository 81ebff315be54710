package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/testkit/mutate"
)

// mutantLine is a line of testdata/mutation/mutants.txt.
type mutantLine struct {
	mutate.Mutant
	line int
	// unaffected are the commands the mutation cannot reach; gap those
	// known to give the unmutated answer still (issue 42's list, each a
	// defect to mend: a gap mended fails the test until its line says so).
	unaffected, gap []string
}

// readMutants reads the mutation list: operator | file | target | argument
// | expect [| unaffected: COMMAND...] [| gap: COMMAND...].
func readMutants(t *testing.T) []mutantLine {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "mutation", "mutants.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []mutantLine
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.Split(text, "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		if len(parts) < 5 || len(parts) > 7 {
			t.Fatalf("mutants.txt:%d: %d fields; want operator | file | target | argument | expect [| unaffected: ...] [| gap: ...]", n, len(parts))
		}
		m := mutantLine{Mutant: mutate.Mutant{Op: parts[0], File: parts[1], Target: parts[2], Arg: parts[3], Expect: parts[4]}, line: n}
		for _, p := range parts[5:] {
			if rest, ok := strings.CutPrefix(p, "unaffected:"); ok {
				m.unaffected = strings.Fields(rest)
			} else if rest, ok := strings.CutPrefix(p, "gap:"); ok {
				m.gap = strings.Fields(rest)
			} else {
				t.Fatalf("mutants.txt:%d: %q; want unaffected: COMMAND... or gap: COMMAND...", n, p)
			}
		}
		switch m.Expect {
		case "change", "refuse", "either", "equivalent":
		default:
			t.Fatalf("mutants.txt:%d: expect %q; want change, refuse, either or equivalent", n, m.Expect)
		}
		out = append(out, m)
	}
	return out
}

// mutationCommands are the commands every mutant runs, each with its
// arguments after the tree's (-C DIR).
var mutationCommands = []struct {
	name string
	args func(dir, caps string) []string
}{
	{"report", func(dir, _ string) []string { return []string{"report", "-C", dir, "-json"} }},
	{"periods", func(dir, _ string) []string { return []string{"periods", "-C", dir, "-json"} }},
	{"gates", func(dir, _ string) []string { return []string{"gates", "-C", dir, "-json"} }},
	{"alerts", func(dir, _ string) []string { return []string{"alerts", "-C", dir} }},
	{"node", func(dir, caps string) []string {
		return []string{"node", "-C", dir, "-configz", filepath.Join(caps, "configz.json"), "-metrics", filepath.Join(caps, "metrics.txt"), "-json"}
	}},
}

// A capture of a kubelet of the look-alike's release, its last relist 2m
// before the scrape: at-risk against a 3m threshold, healthy against one
// twice as long, unhealthy against one shorter.
const (
	mutationConfigz = `{"kubeletconfig":{"featureGates":{}}}`
	mutationMetrics = `# scraped at 2026-12-03T06:47:00Z
# TYPE kubernetes_build_info gauge
kubernetes_build_info{git_version="v1.36.1"} 1
# TYPE kubelet_pleg_last_seen_seconds gauge
kubelet_pleg_last_seen_seconds 1.7962803e+09
`
)

// positions are what a mutation that adds or removes lines moves:
// positions only, not answers.
var positions = regexp.MustCompile(`("(line|column)": )\d+|(\.go|\.proto):\d+(:\d+)?|#L\d+|\bline \d+`)

type mutantOutcome struct {
	code int
	out  string // positions normalised
	raw  string
}

func runMutationCommand(t *testing.T, dir, caps string, args []string) mutantOutcome {
	t.Helper()
	var stdout, stderr strings.Builder
	code := dispatch(args, &stdout, &stderr)
	out := strings.ReplaceAll(stdout.String(), dir, "TREE")
	return mutantOutcome{code, positions.ReplaceAllString(out, "${1}N"), out}
}

// unfollowedFindings are the analyzers' findings saying a construct was
// not followed; ruleFindings those judging what the construct does. Both
// of one statement contradict each other: plegvet cannot have judged what
// it could not follow. A hand-over not followed contradicts any verdict on
// the relist it leaves, wherever that verdict is reported.
var (
	unfollowedFindings = []string{"fallback-unfollowed", "gate-test-unresolved", "gate-write-unfollowed", "health-unknown", "gate-unreadable"}
	ruleFindings       = []string{"fallback-slower", "safety-net-gone", "threshold-not-above-period"}
	contradictingPairs = [][2]string{{"fallback-unfollowed", "fallback-slower"}}
)

// contradictions lists the pairs of findings of a report (-json) that
// contradict each other.
func contradictions(t *testing.T, reportJSON string) []string {
	t.Helper()
	var rep struct {
		Diagnostics []struct {
			Category string
			Message  string
			Pos      struct {
				File string
				Line int
			}
		}
	}
	if err := json.Unmarshal([]byte(reportJSON), &rep); err != nil {
		t.Fatalf("report -json: %v", err)
	}
	var out []string
	for i, a := range rep.Diagnostics {
		for _, b := range rep.Diagnostics[i+1:] {
			pair := func(x, y string) bool {
				return (a.Category == x && b.Category == y) || (a.Category == y && b.Category == x)
			}
			sameLine := a.Pos.File == b.Pos.File && a.Pos.Line == b.Pos.Line
			contradict := slices.ContainsFunc(contradictingPairs, func(p [2]string) bool { return pair(p[0], p[1]) })
			for _, u := range unfollowedFindings {
				for _, r := range ruleFindings {
					contradict = contradict || (sameLine && pair(u, r))
				}
			}
			if contradict {
				out = append(out, fmt.Sprintf("%s at %s:%d and %s at %s:%d", a.Category, a.Pos.File, a.Pos.Line, b.Category, b.Pos.File, b.Pos.Line))
			}
		}
	}
	return out
}

// TestContradictions holds the contradiction check to what it must catch:
// a hand-over reported unfollowed beside a verdict on the relist it
// leaves, and two findings on one statement of which one says plegvet
// did not follow it.
func TestContradictions(t *testing.T) {
	for _, tc := range []struct {
		json string
		want int
	}{
		{`{"diagnostics":[{"category":"fallback-unfollowed","pos":{"file":"pkg/kubelet/pleg/evented.go","line":31}},{"category":"fallback-slower","pos":{"file":"pkg/kubelet/kubelet.go","line":30}}]}`, 1},
		{`{"diagnostics":[{"category":"gate-test-unresolved","pos":{"file":"k.go","line":9}},{"category":"safety-net-gone","pos":{"file":"k.go","line":9}}]}`, 1},
		{`{"diagnostics":[{"category":"gate-test-unresolved","pos":{"file":"k.go","line":9}},{"category":"safety-net-gone","pos":{"file":"k.go","line":12}}]}`, 0},
		{`{"diagnostics":[{"category":"fallback-slower","pos":{"file":"k.go","line":9}},{"category":"threshold-not-above-period","pos":{"file":"k.go","line":9}}]}`, 0},
	} {
		if got := contradictions(t, tc.json); len(got) != tc.want {
			t.Errorf("contradictions(%s) = %q; want %d", tc.json, got, tc.want)
		}
	}
}

// TestMutants applies each mutation of testdata/mutation/mutants.txt to a
// copy of the look-alike checkout, by go/ast rewriting, and runs every
// command on it: each must answer otherwise than for the unmutated tree,
// or exit non-zero (what the line expects), never the unmutated answer
// with exit 0. The table of operators by commands is logged.
func TestMutants(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "src", "k8s.io", "kubernetes")
	caps := t.TempDir()
	for name, text := range map[string]string{"configz.json": mutationConfigz, "metrics.txt": mutationMetrics} {
		if err := os.WriteFile(filepath.Join(caps, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := copyLookAlike(t, src)
	baseline := map[string]mutantOutcome{}
	for _, c := range mutationCommands {
		o := runMutationCommand(t, base, caps, c.args(base, caps))
		if o.code != 0 && o.code != 3 {
			t.Fatalf("%s on the unmutated tree: exit %d\n%s", c.name, o.code, o.out)
		}
		baseline[c.name] = o
	}
	mutants := readMutants(t)
	ops := map[string]bool{}
	var gaps []string
	// table: operator -> command -> counts of "changed", "refused", "same".
	table := map[string]map[string][3]int{}
	for _, m := range mutants {
		ops[m.Op] = true
		dir := copyLookAlike(t, src)
		file := filepath.Join(dir, filepath.FromSlash(m.File))
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("mutants.txt:%d: %v", m.line, err)
		}
		mutated, err := mutate.Apply(text, m.Mutant)
		if err != nil {
			t.Fatalf("mutants.txt:%d: %v", m.line, err)
		}
		if string(mutated) == string(text) {
			t.Fatalf("mutants.txt:%d: %s changes nothing", m.line, m.Mutant)
		}
		if err := os.WriteFile(file, mutated, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range mutationCommands {
			o := runMutationCommand(t, dir, caps, c.args(dir, caps))
			if c.name == "report" {
				for _, x := range contradictions(t, o.raw) {
					t.Errorf("mutants.txt:%d: %s: the report's findings contradict each other: %s", m.line, m.Mutant, x)
				}
			}
			b := baseline[c.name]
			row := table[m.Op]
			if row == nil {
				row = map[string][3]int{}
				table[m.Op] = row
			}
			counts := row[c.name]
			refused := o.code != 0 && o.code != 3
			same := o.code == b.code && o.out == b.out
			switch {
			case refused:
				counts[1]++
			case same:
				counts[2]++
			default:
				counts[0]++
			}
			row[c.name] = counts
			if slices.Contains(m.unaffected, c.name) {
				continue
			}
			// An equivalent mutant (the same behaviour written otherwise)
			// must give the unmutated answer or be refused: any other
			// answer is a wrong one. Its gaps are such wrong answers.
			wrong := same
			if m.Expect == "equivalent" {
				wrong = !same && !refused
			}
			if slices.Contains(m.gap, c.name) {
				if !wrong {
					t.Errorf("mutants.txt:%d: %s: %s now answers otherwise (exit %d): the gap is mended, take %s out of its gap list", m.line, m.Mutant, c.name, o.code, c.name)
				} else {
					gaps = append(gaps, fmt.Sprintf("mutants.txt:%d %s: %s", m.line, m.Mutant, c.name))
				}
				continue
			}
			switch {
			case m.Expect == "equivalent" && wrong:
				t.Errorf("mutants.txt:%d: %s: %s answers otherwise (exit %d), though the mutant behaves as the unmutated code", m.line, m.Mutant, c.name, o.code)
			case m.Expect == "equivalent":
			case same:
				t.Errorf("mutants.txt:%d: %s: %s gives the unmutated answer with exit %d", m.line, m.Mutant, c.name, o.code)
			case m.Expect == "refuse" && !refused:
				t.Errorf("mutants.txt:%d: %s: %s exits %d; want it refused (1)", m.line, m.Mutant, c.name, o.code)
			case m.Expect == "change" && refused:
				t.Errorf("mutants.txt:%d: %s: %s exits %d; want the mutated code's answer", m.line, m.Mutant, c.name, o.code)
			}
		}
	}
	if len(mutants) < 40 || len(ops) < 8 {
		t.Errorf("%d mutants over %d operators; the list should keep at least 40 over 8 (issue 42)", len(mutants), len(ops))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d mutants, %d operators; per command: changed/refused/same\n%-16s", len(mutants), len(ops), "operator")
	for _, c := range mutationCommands {
		fmt.Fprintf(&b, " %-10s", c.name)
	}
	for _, op := range slices.Sorted(maps.Keys(table)) {
		fmt.Fprintf(&b, "\n%-16s", op)
		for _, c := range mutationCommands {
			n := table[op][c.name]
			fmt.Fprintf(&b, " %-10s", fmt.Sprintf("%d/%d/%d", n[0], n[1], n[2]))
		}
	}
	if len(gaps) > 0 {
		fmt.Fprintf(&b, "\n%d known gaps (the unmutated answer with exit 0; for an equivalent mutant, another answer):\n  %s", len(gaps), strings.Join(gaps, "\n  "))
	}
	t.Log("\n" + b.String())
}

// copyLookAlike copies the look-alike checkout into a new directory.
func copyLookAlike(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "kubernetes")
	copyTree(t, src, dst)
	return dst
}
