package kubeletcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// TestKubectlPleg registers a real kubelet (EventedPLEG on, Debian's
// containerd, which cannot stream) to a real API server and runs the real
// kubectl-pleg binary as a node engineer: refused with the messages its
// README promises without RBAC and with a ClusterRole that lacks
// nodes/proxy, and, with the README's own ClusterRole and binding, the
// verdict plegvet gives on a scrape of the same kubelet taken at once.
func TestKubectlPleg(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a kubelet and an API server")
	}
	p := prepare(t)
	release := releases()[0]
	ctx := context.Background()
	kubeletBin, apiserverBin := kubernetesBins(t, p, release)
	plugin := buildKubectlPleg(t)

	n, err := p.StartNode(ctx, harness.NodeSpec{Release: release, KubeletBin: kubeletBin, APIServerBin: apiserverBin,
		Runtime: "debian", Gates: map[string]bool{"EventedPLEG": true}})
	skipOrFail(t, err)
	t.Cleanup(n.Stop)
	cp, rt, k := n.Control, n.Runtime, n.Kubelet
	engineer, err := cp.Kubeconfig("engineer", harness.EngineerToken)
	if err != nil {
		t.Fatal(err)
	}

	// No RBAC: the engineer cannot list nodes.
	out, stderr, code := run(t, plugin, "--kubeconfig", engineer)
	wantList := `cannot list nodes: forbidden: missing RBAC permission "list" on "nodes"`
	if code != 1 || !strings.Contains(stderr, wantList) {
		t.Errorf("without RBAC: exit %d, stderr %q; want exit 1 and %q", code, stderr, wantList)
	}

	// The README's ClusterRole without its nodes/proxy rule: each node is
	// a row naming the missing permission.
	role, binding := readmeRBAC(t)
	rules := role["rules"].([]any)
	role["rules"] = rules[:1]
	apply(t, cp, "/apis/rbac.authorization.k8s.io/v1/clusterroles", role)
	apply(t, cp, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", binding)
	wantProxy := `forbidden: missing RBAC permission "get" on "nodes/proxy"`
	waitFor(t, 30*time.Second, "the node row to name nodes/proxy", func() (bool, string) {
		out, stderr, code = run(t, plugin, "--kubeconfig", engineer)
		return code == 1 && strings.Contains(stderr, wantProxy) && strings.Contains(out, harness.NodeName), fmt.Sprintf("exit %d\n%s\n%s", code, out, stderr)
	})

	// The README's ClusterRole whole: the verdict plegvet gives on a
	// scrape of the same kubelet.
	role["rules"] = rules
	role["metadata"].(map[string]any)["resourceVersion"] = resourceVersion(t, cp, "/apis/rbac.authorization.k8s.io/v1/clusterroles/kubectl-pleg")
	put(t, cp, "/apis/rbac.authorization.k8s.io/v1/clusterroles/kubectl-pleg", role)
	src, err := plegvet.LoadNodeSource(ctx, plegvet.Options{Kubernetes: release}, release)
	if err != nil {
		t.Fatal(err)
	}
	crictl, err := rt.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var results []struct {
		Node    string `json:"node"`
		Verdict string `json:"verdict"`
		Error   string `json:"error"`
	}
	waitFor(t, 30*time.Second, "kubectl pleg to read the node", func() (bool, string) {
		out, stderr, code = run(t, plugin, "--kubeconfig", engineer, "-o", "json")
		results = nil
		json.Unmarshal([]byte(out), &results)
		return len(results) == 1 && results[0].Error == "", fmt.Sprintf("exit %d\n%s\n%s", code, out, stderr)
	})
	scrape, err := k.Scrape(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rtInfo, err := nodeverdict.ReadCrictl("crictl version", crictl)
	if err != nil {
		t.Fatal(err)
	}
	plegvet.JudgeRuntime(ctx, rtInfo)
	rep := decide(t, src, rtInfo, *scrape, "the scrape")
	if results[0].Node != harness.NodeName || results[0].Verdict != rep.Verdict {
		t.Errorf("kubectl pleg says %s: %s; plegvet node on a scrape of the same kubelet says %s\n%s", results[0].Node, results[0].Verdict, rep.Verdict, out)
	}
	t.Logf("kubectl pleg: %s %s (exit %d); plegvet node: %s", results[0].Node, results[0].Verdict, code, rep.Verdict)
}

// buildKubectlPleg builds the plugin from its module in this repository.
func buildKubectlPleg(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "kubectl-pleg")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/kubectl-pleg")
	cmd.Dir = filepath.Join("..", "kubectl-pleg")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl-pleg: %v\n%s", err, out)
	}
	return bin
}

func run(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var o, e bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("%s: %v", bin, err)
	}
	return o.String(), e.String(), code
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s; last: %s", within, what, last)
		}
		time.Sleep(time.Second)
	}
}

// readmeRBAC reads the ClusterRole and ClusterRoleBinding from
// kubectl-pleg's README, the ones a cluster admin copies.
func readmeRBAC(t *testing.T) (role, binding map[string]any) {
	role, binding, err := harness.ReadmeRBAC(filepath.Join("..", "kubectl-pleg", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return role, binding
}

func apply(t *testing.T, cp *harness.ControlPlane, path string, obj map[string]any) {
	t.Helper()
	body, _ := json.Marshal(obj)
	code, out, err := cp.Do(context.Background(), harness.AdminToken, http.MethodPost, path, body)
	if err != nil || code != http.StatusCreated {
		t.Fatalf("POST %s: %v %d %s", path, err, code, out)
	}
}

func put(t *testing.T, cp *harness.ControlPlane, path string, obj map[string]any) {
	t.Helper()
	body, _ := json.Marshal(obj)
	code, out, err := cp.Do(context.Background(), harness.AdminToken, http.MethodPut, path, body)
	if err != nil || code != http.StatusOK {
		t.Fatalf("PUT %s: %v %d %s", path, err, code, out)
	}
}

func resourceVersion(t *testing.T, cp *harness.ControlPlane, path string) string {
	t.Helper()
	code, out, err := cp.Do(context.Background(), harness.AdminToken, http.MethodGet, path, nil)
	var obj struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err != nil || code != http.StatusOK || json.Unmarshal(out, &obj) != nil {
		t.Fatalf("GET %s: %v %d %s", path, err, code, out)
	}
	return obj.Metadata.ResourceVersion
}
