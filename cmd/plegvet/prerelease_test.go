package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPreReleaseToolchain fetches a pre-release the module proxy serves,
// k8s.io/kubernetes@v1.38.0-beta.0, whose go line (1.27) is newer than
// the go command here (1.26.8 when written): under GOTOOLCHAIN=local
// plegvet says so in one line, with the go command's words and what to do;
// under GOTOOLCHAIN=auto the go command fetches Go 1.27 (76 MB, a few
// seconds here) and the release is answered as any other: positioned at
// its tag, cached, and in a range that asks for pre-releases.
func TestPreReleaseToolchain(t *testing.T) {
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); testing.Short() && !ci {
		t.Skip("downloads a pre-release and a Go toolchain (integration; runs without -short, or with CI=true)")
	}
	const v = "v1.38.0-beta.0"
	run := func(args ...string) (code int, stdout, stderr string) {
		var out, errOut bytes.Buffer
		begin := time.Now()
		code = dispatch(args, &out, &errOut)
		t.Logf("plegvet %s (GOTOOLCHAIN=%s): exit %d in %s", strings.Join(args, " "), os.Getenv("GOTOOLCHAIN"), code, time.Since(begin).Round(time.Millisecond))
		return code, out.String(), errOut.String()
	}

	t.Run("local", func(t *testing.T) {
		t.Setenv("GOTOOLCHAIN", "local")
		t.Setenv("PLEGVET_CACHE", "off")
		code, stdout, stderr := run("report", "-k8s", v)
		if code == exitOK && strings.Contains(stdout, "k8s.io/kubernetes@"+v) {
			t.Logf("the go command here is new enough for %s: nothing to refuse", v)
			return
		}
		want := "plegvet report: cannot fetch k8s.io/kubernetes@" + v + " with the go command: k8s.io/kubernetes@" + v + " requires go >= "
		if code != exitFailure || stdout != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "GOTOOLCHAIN=local)") || !strings.Contains(stderr, "GOTOOLCHAIN=auto") || strings.Contains(stderr, "no such Kubernetes release") {
			t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line starting %q, naming GOTOOLCHAIN=auto", code, stdout, stderr, want)
		}
	})

	t.Run("auto", func(t *testing.T) {
		t.Setenv("GOTOOLCHAIN", "auto")
		cache := t.TempDir()
		t.Setenv("PLEGVET_CACHE", cache)
		code, stdout, stderr := run("report", "-k8s", v)
		if code != exitOK || !strings.HasPrefix(stdout, "plegvet report: k8s.io/kubernetes@"+v+" (loaded from source") ||
			!strings.Contains(stdout, "files at https://github.com/kubernetes/kubernetes/blob/"+v+"\n") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		if entries, err := os.ReadDir(cache); err != nil || len(entries) == 0 {
			t.Errorf("answer cache %s: %v, %d entries; want the answer kept", cache, err, len(entries))
		}
		code, stdout, _ = run("report", "-json", "-k8s", v)
		if code != exitOK || !strings.Contains(stdout, `"url": "https://github.com/kubernetes/kubernetes/blob/`+v+`/pkg/features/kube_features.go#L`) ||
			!strings.Contains(stdout, `"kubernetesVersion": "`+v+`"`) {
			t.Errorf("report -json: exit %d, no url at the tag:\n%.2000s", code, stdout)
		}
		// A range takes the pre-release when asked to, and only then.
		code, stdout, stderr = run("gates", "-pre-releases", "-k8s", "v1.37.0..v1.38.0", "EventedPLEG")
		if code != exitOK || !strings.Contains(stdout, "EventedPLEG  v1.37.2 ") || !strings.Contains(stdout, "EventedPLEG  "+v+" ") {
			t.Errorf("gates -pre-releases -k8s v1.37.0..v1.38.0: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		code, stdout, stderr = run("gates", "-k8s", "v1.37.0..v1.38.0-beta.0", "EventedPLEG")
		if code != exitOK || !strings.Contains(stdout, "EventedPLEG  v1.37.2 ") || strings.Contains(stdout, v) {
			t.Errorf("gates -k8s v1.37.0..v1.38.0-beta.0 (no pre-releases): exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
}
