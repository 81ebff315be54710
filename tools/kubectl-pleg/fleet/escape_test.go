package fleet

import (
	"strconv"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// hostile are nodes whose names and node info hold what a terminal acts
// on: an escape that clears the screen, and a CR LF that starts a forged
// row; and a node that cannot be read, whose error row and stderr line
// carry its name.
func hostile() []fakecluster.Node {
	old1, unreachable := mixed()[0], mixed()[3]
	evil := old1
	evil.Name = "evil\x1b[2J\r\nnode-0 v1.36.1 generic"
	unreachable.Name = "bell\a-node\tx"
	unreachable.RuntimeVersion = "containerd://2.0.4\x1b]0;owned\a"
	return []fakecluster.Node{old1, evil, unreachable}
}

// checkOneLineEach checks text has no control character but newlines.
func checkOneLineEach(t *testing.T, what, text string) {
	t.Helper()
	for _, r := range text {
		if r != '\n' && !strconv.IsPrint(r) && r != ' ' {
			t.Errorf("%s holds %q:\n%s", what, r, text)
			return
		}
	}
}

func TestHostileNodeNames(t *testing.T) {
	rec := newRecorder(t)
	nodes := hostile()
	kc := start(t, &fakecluster.Cluster{Nodes: nodes})
	for _, output := range []string{"", "wide"} {
		args := []string{"--kubeconfig", kc, "--request-timeout", "2s"}
		if output != "" {
			args = append(args, "-o", output)
		}
		code, stdout, stderr := runMain(t, rec.hooks(), args...)
		if code != exitFail {
			t.Errorf("-o %q: exit code %d; want %d (a node cannot be read)\n%s", output, code, exitFail, stderr)
		}
		checkOneLineEach(t, "-o "+output+" stdout", stdout)
		checkOneLineEach(t, "-o "+output+" stderr", stderr)
		lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
		if len(lines) != len(nodes)+2 {
			t.Fatalf("-o %q: %d lines; want a header, one row a node and a summary:\n%s", output, len(lines), stdout)
		}
		// A plain name prints as it is; the others Go-quoted, on one row.
		for i, want := range []string{
			"old-1 ",
			`"evil\x1b[2J\r\nnode-0 v1.36.1 generic" `,
			`"bell\a-node\tx" `,
		} {
			if !strings.HasPrefix(lines[i+1], want) {
				t.Errorf("-o %q: row %q; want it to begin %q", output, lines[i+1], want)
			}
		}
		if !strings.Contains(lines[3], ` error `) || !strings.Contains(lines[3], `"containerd://2.0.4\x1b]0;owned\a"`) {
			t.Errorf("-o %q: the error row %q does not show the runtime escaped", output, lines[3])
		}
		if !strings.Contains(stderr, "\nkubectl pleg: \"bell\\a-node\\tx\": ") && !strings.HasPrefix(stderr, "kubectl pleg: \"bell\\a-node\\tx\": ") {
			t.Errorf("-o %q: stderr does not name the unreadable node, escaped:\n%s", output, stderr)
		}
	}
	// JSON keeps the names as they are, encoding/json escaping them.
	_, js, _ := runMain(t, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "2s", "-o", "json")
	got := byNode(t, js)
	for _, n := range nodes {
		if got[n.Name] == nil {
			t.Errorf("-o json has no node %q", n.Name)
		}
	}
	checkOneLineEach(t, "-o json", js)
	_, y, _ := runMain(t, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "2s", "-o", "yaml")
	checkOneLineEach(t, "-o yaml", y)
}
