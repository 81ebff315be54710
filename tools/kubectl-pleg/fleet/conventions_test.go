package fleet

import (
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// -h and --help print the usage on stdout, as kubectl's commands do, with
// the command named as the user types it and kubectl's flags listed.
func TestHelpAsKubectl(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		code, stdout, stderr := runMain(t, nil, arg)
		if code != 0 || stderr != "" {
			t.Errorf("%s: exit %d, stderr %q; want 0 and nothing", arg, code, stderr)
		}
		if !strings.HasPrefix(stdout, "kubectl pleg: ") || !strings.Contains(stdout, "\nUsage:\n  kubectl pleg [NODE...] [-l SELECTOR] [-o wide|json|yaml]") {
			t.Errorf("%s: want the usage of kubectl pleg on stdout:\n%s", arg, stdout)
		}
		if strings.Contains(stdout, "kubectl-pleg") {
			t.Errorf("%s: the usage names the binary, not the command kubectl pleg:\n%s", arg, stdout)
		}
		for _, flag := range []string{"[--kubeconfig FILE] [--context NAME] [--request-timeout 30s]", "-l, --selector string", "--context string", "--kubeconfig string", `--request-timeout string`, `(default "30s")`, "-o, --output string", "--as string", "--user string"} {
			if !strings.Contains(stdout, flag) {
				t.Errorf("%s: the usage lacks %q", arg, flag)
			}
		}
	}
}

// --context picks a context of the kubeconfig other than its current
// one, as kubectl does.
func TestContextFlag(t *testing.T) {
	rec := newRecorder(t)
	kc := start(t, &fakecluster.Cluster{Nodes: mixed()[:1]})
	cfg, err := clientcmd.LoadFromFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	// The current context is a cluster nobody listens at.
	gone := *cfg.Clusters["fake"]
	gone.Server = "https://127.0.0.1:1"
	cfg.Clusters["gone"] = &gone
	other := *cfg.Contexts["fake"]
	other.Cluster = "gone"
	cfg.Contexts["gone"] = &other
	cfg.CurrentContext = "gone"
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "2s"); code != exitFail || !strings.Contains(stderr, "127.0.0.1:1") {
		t.Errorf("the current context: exit %d, stderr %q; want 1 naming its server", code, stderr)
	}
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--context", "fake", "--request-timeout", "2s")
	if code != 0 || !strings.Contains(stdout, mixed()[0].Name) {
		t.Errorf("--context fake: exit %d\n%s%s", code, stdout, stderr)
	}
}
