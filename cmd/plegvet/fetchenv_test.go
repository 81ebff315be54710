package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// PLEGVET_FETCH_TIMEOUT is a duration, 0 for no limit: a negative one is
// refused, not taken as no limit.
func TestFetchTimeoutEnv(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"-5s", "plegvet gates: PLEGVET_FETCH_TIMEOUT=\"-5s\": a negative duration; want a Go duration such as 10m or 90s (0: no limit)\n"},
		{"5", "plegvet gates: PLEGVET_FETCH_TIMEOUT=\"5\": not a duration; want a Go duration such as 10m or 90s (0: no limit)\n"},
	} {
		t.Setenv("PLEGVET_FETCH_TIMEOUT", tc.value)
		var stdout, stderr bytes.Buffer
		code := dispatch([]string{"gates", "-k8s", "v1.36.1"}, &stdout, &stderr)
		if code != exitUsage || stderr.String() != tc.want || stdout.Len() != 0 {
			t.Errorf("PLEGVET_FETCH_TIMEOUT=%s: exit %d, stderr %q; want %d, %q", tc.value, code, stderr.String(), exitUsage, tc.want)
		}
	}
	for _, ok := range []string{"0", "90s", ""} {
		t.Setenv("PLEGVET_FETCH_TIMEOUT", ok)
		if _, err := parseFetchOptions(); err != nil {
			t.Errorf("PLEGVET_FETCH_TIMEOUT=%q: %v", ok, err)
		}
	}
}

// A TMPDIR that names no directory is said to be TMPDIR, not a bare stat
// error (nor, where the go command would run in it, a fork/exec error
// naming the go binary).
func TestTempDirEnv(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone")
	t.Setenv("TMPDIR", missing)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "-k8s", "v1.37.2"}, "plegvet report: fetching k8s.io/kubernetes@v1.37.2, k8s.io/cri-api@v0.37.2: TMPDIR=%q: no such directory; want a directory for temporary files (TMPDIR unset is /tmp)\n"},
		{[]string{"report", "-k8s", "v1.36.0..v1.36.2"}, "plegvet report: asking the go command for v1.36 patches: TMPDIR=%q: no such directory; want a directory for temporary files (TMPDIR unset is /tmp)\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := dispatch(tc.args, &stdout, &stderr)
		if want := fmt.Sprintf(tc.want, missing); code != exitFailure || !strings.HasSuffix(stderr.String(), want) {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", strings.Join(tc.args, " "), code, stderr.String(), exitFailure, want)
		}
	}
}
