package runtimeread

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/load/release"
)

// TestNotExist reads what the go command says when it does not fetch a
// module: only a proxy's or a repository's "no such version" is one; a
// proxy that could not be asked says nothing of the version.
func TestNotExist(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"cannot fetch github.com/containerd/containerd@v1.6.99 with the go command: github.com/containerd/containerd@v1.6.99: reading https://proxy.golang.org/github.com/containerd/containerd/@v/v1.6.99.info: 404 Not Found server response: not found: github.com/containerd/containerd@v1.6.99: invalid version: unknown revision v1.6.99", true},
		{"m@v1.0.0: reading https://proxy.golang.org/m/@v/v1.0.0.info: 410 Gone server response: not found: m@v1.0.0: invalid version: unknown revision v1.0.0", true},
		{"m@v1.0.0: reading http://127.0.0.1:8080/m/@v/v1.0.0.info: 404 File not found", true},
		{"m@v1.0.0: invalid version: unknown revision v1.0.0", true},
		{"m@v1.0.1-0.20240101000000-abcdef123456: invalid pseudo-version: does not match version-control timestamp (expected 20231231000000)", true},
		{"m@v1.0.0: reading file:///tmp/proxy/m/@v/v1.0.0.info: no such file or directory", true},
		{"m@v1.0.0: module lookup disabled by GOPROXY=off", false},
		{`m@v1.0.0: Get "http://127.0.0.1:9/m/@v/v1.0.0.info": dial tcp 127.0.0.1:9: connect: connection refused`, false},
		{`m@v1.0.0: Get "https://proxy.golang.org/m/@v/v1.0.0.info": dial tcp: lookup proxy.golang.org: no such host`, false},
		{"m@v1.0.0: reading https://proxy.golang.org/m/@v/v1.0.0.info: 403 Forbidden server response: This module version is not available.", true},
		{"m@v1.0.0: reading https://proxy.example/m/@v/v1.0.0.info: 502 Bad Gateway", false},
		{"m@v1.0.0: reading https://proxy.example/m/@v/v1.0.0.info: 4040 Odd", false},
		{"verifying m@v1.0.0: m@v1.0.0: reading https://sum.golang.org/lookup/m@v1.0.0: 404 Not Found", false},
		{"m@v1.0.0: invalid version: git ls-remote -q origin in /tmp/x: exit status 128: fatal: unable to access 'https://github.com/m/': Could not resolve host: github.com", false},
		{"fetching m@v1.0.0: no answer from the go command within 5m0s (GOPROXY=https://proxy.golang.org,direct): context deadline exceeded", false},
	} {
		if got := NotExist(tc.msg); got != tc.want {
			t.Errorf("NotExist(%q) = %t, want %t", tc.msg, got, tc.want)
		}
	}
}

// TestFetchFailures runs the go command against proxies that cannot
// serve (none is on the network): a proxy's 403, 404 or 410 says the
// version is not to be had (ErrNoSuchVersion); GOPROXY=off with an empty
// module cache, a port where nothing listens, a proxy's 500 say nothing
// of it. Every one is a refusal (release.ErrProxyRefused), in one line.
func TestFetchFailures(t *testing.T) {
	// The proxy answers v1.0.NNN with the status NNN.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, v, _ := strings.Cut(r.URL.Path, "/@v/v1.0.")
		code, err := strconv.Atoi(strings.TrimSuffix(v, ".info"))
		if err != nil || code < 400 {
			code = http.StatusNotFound
		}
		http.Error(w, "not served here", code)
	}))
	defer proxy.Close()
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOPRIVATE", "")
	t.Setenv("GONOPROXY", "")
	t.Setenv("GOTOOLCHAIN", "local")
	for _, tc := range []struct {
		goproxy, version string
		noSuch           bool
		says             string
	}{
		{proxy.URL, "v1.0.404", true, "404 Not Found"},
		{proxy.URL, "v1.0.410", true, "410 Gone"},
		{proxy.URL, "v1.0.403", true, "403 Forbidden"},
		{proxy.URL, "v1.0.500", false, "500 Internal Server Error"},
		{"off", "v1.0.0", false, "module lookup disabled by GOPROXY=off"},
		{"http://127.0.0.1:9", "v1.0.0", false, "127.0.0.1:9"},
	} {
		t.Setenv("GOPROXY", tc.goproxy)
		_, err := Fetch(context.Background(), "example.com/runtime", tc.version, 0)
		if err == nil {
			t.Errorf("GOPROXY=%s, %s: fetched", tc.goproxy, tc.version)
			continue
		}
		if errors.Is(err, ErrNoSuchVersion) != tc.noSuch || !errors.Is(err, release.ErrProxyRefused) {
			t.Errorf("GOPROXY=%s, %s: %v; want ErrNoSuchVersion %t, and ErrProxyRefused", tc.goproxy, tc.version, err, tc.noSuch)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.says) || strings.Contains(msg, "\n") {
			t.Errorf("GOPROXY=%s, %s: %q, want one line with %q", tc.goproxy, tc.version, msg, tc.says)
		}
	}
}
