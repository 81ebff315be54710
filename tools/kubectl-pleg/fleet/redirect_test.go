package fleet

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/fakecluster"
)

// A node proxy answered with a redirect to another host (plain HTTP) is
// an unreadable node: kubectl pleg does not follow it, so the other host
// never sees the bearer token, and its answer is not taken as the node's.
func TestRedirectsAreNotFollowed(t *testing.T) {
	var mu sync.Mutex
	var seen []string // Authorization headers the other host received
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(`{"kubeletconfig":{"featureGates":{"EventedPLEG":true}}}`))
	}))
	defer sink.Close()
	rec := newRecorder(t)
	redirected := mixed()[0]
	redirected.RedirectTo = sink.URL
	kc := start(t, &fakecluster.Cluster{Nodes: []fakecluster.Node{redirected}})
	code, stdout, stderr := runMain(t, rec.hooks(), "--kubeconfig", kc, "--request-timeout", "5s")
	if code != exitFail {
		t.Errorf("exit code %d; want %d (the node could not be read)\n%s%s", code, exitFail, stdout, stderr)
	}
	if !strings.Contains(stderr, "kubectl pleg follows no redirect") || !strings.Contains(stderr, sink.URL) {
		t.Errorf("stderr does not say the redirect was refused:\n%s", stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) > 0 {
		t.Errorf("the other host was asked: %q", seen)
	}
}
