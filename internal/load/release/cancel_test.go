package release

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangBound is how long a stopped fetch may take before the test calls it
// a hang: generous, a guard and not a timing assertion.
const hangBound = 30 * time.Second

// hangingEnv points the go command at a module proxy on 127.0.0.1 that
// accepts every request and never answers, with an empty module cache,
// no checksum database and a TMPDIR of the test's own. hits receives one
// value per request the proxy holds.
func hangingEnv(t *testing.T) (proxy, tmp string, hits <-chan string) {
	done := make(chan struct{})
	hit := make(chan string, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hit <- r.URL.Path:
		default:
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(done); srv.Close() })
	for k, v := range map[string]string{
		"GOPROXY":      srv.URL,
		"GOFLAGS":      "-mod=mod -modcacherw",
		"GONOSUMDB":    "*",
		"GONOSUMCHECK": "1",
		"GOSUMDB":      "off",
		"GOPRIVATE":    "",
		"GONOPROXY":    "",
		"GOTOOLCHAIN":  "local", // no toolchain fetch through the proxy first
		"GOMODCACHE":   t.TempDir(),
	} {
		t.Setenv(k, v)
	}
	tmp = t.TempDir()
	t.Setenv("TMPDIR", tmp)
	return srv.URL, tmp, hit
}

// watchGoCommands returns a Fetcher with the timeout d that records the
// pid of every go command its runGo starts, and those pids.
func watchGoCommands(d time.Duration) (Fetcher, func() []int) {
	var mu sync.Mutex
	var pids []int
	f := Fetcher{Timeout: d, started: func(pid int) {
		mu.Lock()
		defer mu.Unlock()
		pids = append(pids, pid)
	}}
	return f, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), pids...)
	}
}

// within runs f, failing the test if it has not returned after hangBound.
func within(t *testing.T, f func() error) error {
	t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- f() }()
	select {
	case err := <-errc:
		return err
	case <-time.After(hangBound):
		t.Fatalf("still fetching after %s: the fetch hangs", hangBound)
		return nil
	}
}

// assertCleanedUp checks that no plegvet-download-* directory is left in
// tmp and that no go command (nor anything in its process group) lives on.
func assertCleanedUp(t *testing.T, tmp string, pids []int) {
	t.Helper()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "plegvet-download-") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
	}
	if len(pids) == 0 {
		t.Fatal("no go command was started")
	}
	for _, pid := range pids {
		if alive := survivors(pid); alive != "" {
			t.Errorf("go command %d: %s", pid, alive)
		}
	}
}

// A proxy that never answers: the fetch gives up at the Fetcher's
// Timeout, with one line that names the proxy and wraps
// context.DeadlineExceeded.
func TestDownloadDeadline(t *testing.T) {
	proxy, tmp, hits := hangingEnv(t)
	f, pids := watchGoCommands(2 * time.Second)
	err := within(t, func() error {
		_, err := f.Download(context.Background(), "k8s.io/kubernetes@v1.36.1")
		return err
	})
	t.Logf("err = %v", err)
	if len(hits) == 0 {
		t.Error("the go command never asked the proxy")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	want := "fetching k8s.io/kubernetes@v1.36.1: no answer from the go command within 2s (GOPROXY=" + proxy + ")"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %q, want one line starting %q", err, want)
	}
	assertCleanedUp(t, tmp, pids())
}

// Cancelling the context once the go command is waiting on the proxy
// stops it at once, long before the Fetcher's Timeout.
func TestFetchCancel(t *testing.T) {
	_, tmp, hits := hangingEnv(t)
	f, pids := watchGoCommands(10 * time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-hits // the child runs and waits on the proxy
		cancel()
	}()
	err := within(t, func() error {
		_, err := f.Fetch(ctx, "v1.36.1", true)
		return err
	})
	t.Logf("err = %v", err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want one wrapping context.Canceled", err)
	}
	want := "fetching k8s.io/kubernetes@v1.36.1, k8s.io/cri-api@v0.36.1: interrupted before the go command answered"
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %q, want one line starting %q", err, want)
	}
	assertCleanedUp(t, tmp, pids())
}

// A context already done starts no go command and makes no directory.
func TestDownloadCancelledBefore(t *testing.T) {
	_, tmp, _ := hangingEnv(t)
	f, pids := watchGoCommands(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := f.Download(ctx, "k8s.io/kubernetes@v1.36.1")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want one wrapping context.Canceled", err)
	}
	if got := pids(); len(got) != 0 {
		t.Errorf("go commands started: %v", got)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("TMPDIR holds %v", entries)
	}
}

// The caller's own deadline, shorter than the Fetcher's Timeout, stops a
// range's go list just as well, and no partial answer comes back.
func TestRangeCallerDeadline(t *testing.T) {
	proxy, tmp, _ := hangingEnv(t)
	f, pids := watchGoCommands(10 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var got []string
	err := within(t, func() error {
		var err error
		got, err = f.Range(ctx, "v1.36.0..v1.36.3")
		return err
	})
	t.Logf("err = %v", err)
	if !errors.Is(err, context.DeadlineExceeded) || got != nil {
		t.Errorf("Range = %v, %v; want an error wrapping context.DeadlineExceeded", got, err)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "asking the go command for v1.36 patches: no answer from the go command within ") ||
		!strings.Contains(err.Error(), "(GOPROXY="+proxy+")") {
		t.Errorf("err = %q", err)
	}
	assertCleanedUp(t, tmp, pids())
}
