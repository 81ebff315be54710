package fleet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// runBounded is runMain under a deadline well past what the run may take:
// a run that would not end fails the test instead of hanging it.
func runBounded(t *testing.T, limit time.Duration, hooks *Options, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*limit)
	defer cancel()
	var out, errOut bytes.Buffer
	began := time.Now()
	code = Main(ctx, args, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, hooks)
	took = time.Since(began)
	if took > limit {
		t.Errorf("took %s; want at most %s\n%s", took.Round(time.Millisecond), limit, errOut.String())
	}
	return code, out.String(), errOut.String(), took
}

// A node proxy that answers 429 with Retry-After: 30 every time: client-go
// retries ten times, 30 s apart; --request-timeout bounds the node's
// whole answer, retries included, and its row says so. The other nodes
// still answer.
func TestRequestTimeoutBoundsRetries(t *testing.T) {
	rec := newRecorder(t)
	nodes := mixed()[:2]
	nodes = append(nodes, fakecluster.Node{Name: "throttled", KubeletVersion: "v1.40.1", RuntimeVersion: "containerd://2.0.4", RetryAfter: 30})
	kc := start(t, &fakecluster.Cluster{Nodes: nodes})
	code, stdout, stderr, _ := runBounded(t, 15*time.Second, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "2s", "-o", "json")
	if code != 1 {
		t.Errorf("exit code %d; want 1\n%s", code, stderr)
	}
	got := byNode(t, stdout)
	want := `^configz: timed out after 2s \(--request-timeout\)`
	if e, _ := got["throttled"]["error"].(string); !regexp.MustCompile(want).MatchString(e) {
		t.Errorf("throttled: error %q; want %s", e, want)
	}
	for _, n := range []string{"old-1", "new-1"} {
		if e, _ := got[n]["error"].(string); e != "" {
			t.Errorf("%s: error %q; want an answer", n, e)
		}
	}
	t.Log(stderr)
}

// An API server whose node list never ends: the same continue token
// again, the same nodes again, or empty pages with new tokens. The list
// stops at once with an error naming the token, exit 1.
func TestEndlessNodeList(t *testing.T) {
	for _, tc := range []struct {
		name     string
		selector string
		cont     func(served int64) string
		want     string
	}{
		{"the same token", "", func(int64) string { return "Zm9vYmFy" },
			`^kubectl pleg: cannot list nodes: page 2's continue token "Zm9vYmFy" is page 1's again: the API server's list would never end$`},
		{"the same nodes", "", func(n int64) string { return fmt.Sprintf("page-%d", n) },
			`^kubectl pleg: cannot list nodes: page 2 \(continue token "page-0"\) lists node "old-1" again: the API server's list would never end$`},
		{"empty pages", "role=none", func(n int64) string { return fmt.Sprintf("page-%d", n) },
			`^kubectl pleg: cannot list nodes: page 1 has continue token "page-0" after 0 nodes, more pages than the nodes listed could need: the API server's list would never end$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(t)
			c := &fakecluster.Cluster{Nodes: mixed()[:2], Continue: tc.cont}
			kc := start(t, c)
			args := []string{"--kubeconfig", kc, "--request-timeout", "2s"}
			if tc.selector != "" {
				args = append(args, "-l", tc.selector)
			}
			code, stdout, stderr, _ := runBounded(t, 5*time.Second, rec.hooks(), args...)
			if code != 1 || stdout != "" {
				t.Errorf("exit code %d, stdout %q; want 1 and nothing", code, stdout)
			}
			if !regexp.MustCompile(tc.want).MatchString(strings.TrimSuffix(stderr, "\n")) {
				t.Errorf("stderr %q; want %s", stderr, tc.want)
			}
			if lists, _, _, _ := c.Counts(); lists > 2 {
				t.Errorf("%d list requests; want the list stopped at the second page", lists)
			}
		})
	}
}

// repeated is n bytes of b, streamed.
func repeated(b byte, n int64) io.Reader {
	return io.LimitReader(byteReader(b), n)
}

type byteReader byte

func (b byteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// A kubelet whose metrics are too large, by one line or in all: its row
// says which, with the limit; the other nodes still answer. Nothing is
// read past the limit.
func TestMetricsTooLarge(t *testing.T) {
	rec := newRecorder(t)
	body := fakecluster.Generic("v1.40.1")
	nodes := append(mixed()[:2],
		fakecluster.Node{Name: "long-help", KubeletVersion: "v1.40.1", RuntimeVersion: "containerd://2.0.4", MetricsFrom: func() io.Reader {
			return io.MultiReader(strings.NewReader("# HELP kubelet_pleg_relist_duration_seconds "), repeated('x', 200<<20), strings.NewReader("\n"+body))
		}},
		fakecluster.Node{Name: "long-body", KubeletVersion: "v1.40.1", RuntimeVersion: "containerd://2.0.4", MetricsFrom: func() io.Reader {
			return io.MultiReader(repeated('\n', 17<<20), strings.NewReader(body))
		}},
	)
	kc := start(t, &fakecluster.Cluster{Nodes: nodes})
	code, stdout, stderr, _ := runBounded(t, 20*time.Second, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "10s", "-o", "json")
	if code != 1 {
		t.Errorf("exit code %d; want 1\n%s", code, stderr)
	}
	got := byNode(t, stdout)
	for name, want := range map[string]string{
		"long-help": "metrics: line 1 is more than 1048576 bytes; want the kubelet's metrics, whose lines are a few hundred bytes",
		"long-body": "metrics: more than 16777216 bytes, plegvet node's limit for a metrics file; want the kubelet's metrics",
	} {
		if e, _ := got[name]["error"].(string); e != want {
			t.Errorf("%s: error %q; want %q", name, e, want)
		}
		if !strings.Contains(stderr, "kubectl pleg: "+name+": "+want+"\n") {
			t.Errorf("stderr does not name %s:\n%s", name, stderr)
		}
	}
	for _, n := range []string{"old-1", "new-1"} {
		if e, _ := got[n]["error"].(string); e != "" {
			t.Errorf("%s: error %q; want an answer", n, e)
		}
	}
}

// A client whose rate limiter makes a request wait past the answer's
// deadline: the row says it timed out waiting for it (x/time/rate's own
// words wrap no context error).
func TestRateLimiterWaitIsATimeout(t *testing.T) {
	rec := newRecorder(t)
	kc := start(t, &fakecluster.Cluster{Nodes: mixed()[:2]})
	code, stdout, stderr, _ := runBounded(t, 15*time.Second, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "1s", "--qps", "0.1", "--burst", "1", "-o", "json")
	if code != 1 {
		t.Errorf("exit code %d; want 1\n%s", code, stderr)
	}
	want := regexp.MustCompile(`^(configz|metrics): timed out after 1s \(--request-timeout\) waiting for the client's rate limiter \(--qps\)$`)
	limited := 0
	for _, r := range byNode(t, stdout) {
		if e, _ := r["error"].(string); want.MatchString(e) {
			limited++
		}
	}
	if limited == 0 {
		t.Errorf("no row says the rate limiter held its request past the deadline:\n%s", stderr)
	}
}
