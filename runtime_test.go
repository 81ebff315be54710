package plegvet_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
	"golang.org/x/tools/txtar"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
)

// lookalike writes a look-alike runtime module of
// internal/load/runtimeread/testdata/shapes under a new directory.
func lookalike(t *testing.T, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("internal", "load", "runtimeread", "testdata", "shapes", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	return dir
}

func verdictText(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}

func posText(p *answer.Pos) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// TestRuntimeStreamsDir reads a checkout: a CRI-O look-alike is named by
// its module path, and its verdict, position and JSON keys are there.
func TestRuntimeStreamsDir(t *testing.T) {
	dir := lookalike(t, "crio")
	rep, err := plegvet.RuntimeStreamsDir(context.Background(), "", dir, plegvet.FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runtime != "cri-o" || rep.Module != "github.com/cri-o/cri-o" || rep.CRIAPI != "v0.31.0" {
		t.Errorf("runtime %q, module %q, cri-api %q", rep.Runtime, rep.Module, rep.CRIAPI)
	}
	if verdictText(rep.StreamsEvents) != "true" || posText(rep.Pos) != "server/cri/v1/events.go:7" {
		t.Errorf("streams %s at %s, want true at server/cri/v1/events.go:7; why %s", verdictText(rep.StreamsEvents), posText(rep.Pos), rep.Why)
	}
	if len(rep.Servers) != 1 || rep.Servers[0].Shape != "sends" || rep.Servers[0].Evidence == nil || rep.Servers[0].Evidence.Line != 9 {
		t.Errorf("servers %+v", rep.Servers)
	}
	if rep.Source.Load.Mode != "source" || len(rep.Source.Load.Problems) != 0 {
		t.Errorf("source %+v", rep.Source)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schemaVersion", "source", "runtime", "version", "module", "moduleVersion", "criApi", "streamsEvents", "pos", "why", "servers"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON has no %q: %s", k, b)
		}
	}
	if pos, _ := keys["pos"].(map[string]any); pos["file"] != "server/cri/v1/events.go" || pos["line"] != 7.0 || pos["column"] != 1.0 {
		t.Errorf("pos %v", keys["pos"])
	}
	// Plain data: decoded from its JSON, it encodes to the same bytes.
	var back answer.RuntimeReport
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(&back); string(again) != string(b) {
		t.Errorf("JSON round trip:\n%s\n%s", b, again)
	}
}

// TestRuntimeStreamsAnswers: a runtime plegvet does not know is an
// answer (null, with why), and so is a version the proxy says does not
// exist (404, 410); neither is an error. Nothing here reaches the network.
func TestRuntimeStreamsAnswers(t *testing.T) {
	proxy := notFoundProxy(t)
	for _, tc := range []struct{ goproxy, name, version, why string }{
		{"off", "docker", "24.0.7", `does not know the runtime "docker"`},
		{"off", "", "docker://24.0.7", `does not know the runtime "docker"`},
		{"off", "Docker", "docker://24.0.7", `does not know the runtime "Docker"`},
		{proxy, "cri-o", "1.31.0", "cri-o/@v/v1.31.0.info: 404 Not Found"},
		{proxy, "", "containerd://1.7.410", "containerd/@v/v1.7.410.info: 410 Gone"},
	} {
		t.Setenv("GOPROXY", tc.goproxy)
		rep, err := plegvet.RuntimeStreams(context.Background(), tc.name, tc.version, plegvet.FetchOptions{})
		if err != nil {
			t.Errorf("RuntimeStreams(%q, %q): %v", tc.name, tc.version, err)
			continue
		}
		if rep.StreamsEvents != nil || rep.Pos != nil || !strings.Contains(rep.Why, tc.why) || rep.Servers == nil {
			t.Errorf("RuntimeStreams(%q, %q) = streams %s at %s, why %q; want null, why with %q", tc.name, tc.version, verdictText(rep.StreamsEvents), posText(rep.Pos), rep.Why, tc.why)
		}
		if rep.Version != tc.version || rep.Source.Load.Mode != "none" {
			t.Errorf("RuntimeStreams(%q, %q): version %q, load %q", tc.name, tc.version, rep.Version, rep.Source.Load.Mode)
		}
	}
}

// notFoundProxy is a module proxy on the loopback that serves nothing:
// v1.7.410 is 410 Gone, every other version 404 Not Found. It sets an
// empty module cache, without checksum database or toolchain switch.
func notFoundProxy(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/@v/v1.7.410.") {
			http.Error(w, "gone", http.StatusGone)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "-mod=mod -modcacherw")
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOPRIVATE", "")
	t.Setenv("GONOPROXY", "")
	t.Setenv("GOTOOLCHAIN", "local")
	return srv.URL
}

// TestRuntimeStreamsFetchFails: a fetch that learns nothing of the
// version (GOPROXY=off with an empty module cache, a proxy where nothing
// listens) is an error, in one line, wrapping ErrProxyRefused as a
// Kubernetes release's fetch does: not an answer whose streamsEvents is
// null.
func TestRuntimeStreamsFetchFails(t *testing.T) {
	notFoundProxy(t) // its environment: an empty module cache
	for _, tc := range []struct{ goproxy, name, version, says string }{
		{"off", "cri-o", "1.31.0", "cannot fetch github.com/cri-o/cri-o@v1.31.0 with the go command: github.com/cri-o/cri-o@v1.31.0: module lookup disabled by GOPROXY=off"},
		{"off", "", "containerd://1.7.999", "module lookup disabled by GOPROXY=off"},
		{"http://127.0.0.1:9", "containerd", "1.6.20~ds1", `cannot fetch github.com/containerd/containerd@v1.6.20 with the go command: github.com/containerd/containerd@v1.6.20: Get "http://127.0.0.1:9/github.com/containerd/containerd/@v/v1.6.20.info": dial tcp 127.0.0.1:9: connect: connection refused`},
		{"http://127.0.0.1:9", "containerd", "v2.0.0-20240101000000-abcdef123456", "cannot fetch github.com/containerd/containerd/v2@v2.0.0-20240101000000-abcdef123456 with the go command"},
	} {
		t.Setenv("GOPROXY", tc.goproxy)
		rep, err := plegvet.RuntimeStreams(context.Background(), tc.name, tc.version, plegvet.FetchOptions{})
		if err == nil {
			t.Errorf("GOPROXY=%s RuntimeStreams(%q, %q) = streams %s, why %q; want an error", tc.goproxy, tc.name, tc.version, verdictText(rep.StreamsEvents), rep.Why)
			continue
		}
		if !errors.Is(err, plegvet.ErrProxyRefused) || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("GOPROXY=%s RuntimeStreams(%q, %q): %q; want one line wrapping ErrProxyRefused, with %q", tc.goproxy, tc.name, tc.version, err, tc.says)
		}
	}
}

// TestRuntimeStreamsDirAPIFetch: a checkout whose CRI server has no
// GetContainerEvents is decided by the k8s.io/cri-api its go.mod requires,
// fetched. A proxy that says that version does not exist leaves the
// answer null, with why; a fetch that learns nothing (GOPROXY=off, a proxy
// where nothing listens) is an error, as for a release.
func TestRuntimeStreamsDirAPIFetch(t *testing.T) {
	dir := lookalike(t, "nomethod")
	proxy := notFoundProxy(t)
	t.Setenv("GOPROXY", proxy)
	rep, err := plegvet.RuntimeStreamsDir(context.Background(), "", dir, plegvet.FetchOptions{})
	if err != nil {
		t.Fatalf("a proxy that says 404: %v", err)
	}
	if rep.StreamsEvents != nil || !strings.Contains(rep.Why, "whether that API declares the rpc is unknown") || !strings.Contains(rep.Why, "404 Not Found") {
		t.Errorf("a proxy that says 404: streams %s, why %q", verdictText(rep.StreamsEvents), rep.Why)
	}
	for _, goproxy := range []string{"off", "http://127.0.0.1:9"} {
		t.Setenv("GOPROXY", goproxy)
		rep, err := plegvet.RuntimeStreamsDir(context.Background(), "", dir, plegvet.FetchOptions{})
		if err == nil {
			t.Errorf("GOPROXY=%s: streams %s, why %q; want an error", goproxy, verdictText(rep.StreamsEvents), rep.Why)
			continue
		}
		if !errors.Is(err, plegvet.ErrProxyRefused) || !strings.Contains(err.Error(), "cannot fetch k8s.io/cri-api@v0.23.1 with the go command") {
			t.Errorf("GOPROXY=%s: %v", goproxy, err)
		}
	}
}

// TestRuntimeStreamsTooLong: a version (or a name) longer than
// MaxRuntimeVersionLen is refused, whatever the runtime, in one line that
// quotes its first 40 bytes once, with its length.
func TestRuntimeStreamsTooLong(t *testing.T) {
	notFoundProxy(t) // an empty module cache
	t.Setenv("GOPROXY", "off")
	long := "1.7.27~" + strings.Repeat("x", 10240)
	prefix := `"1.7.27~xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (10247 bytes)`
	for _, tc := range []struct {
		name, version, want string
		is                  error
	}{
		{"containerd", long, "version " + prefix + ": not a runtime version: longer than 128 bytes", plegvet.ErrNotARuntimeVersion},
		{"docker", long, "version " + prefix + ": not a runtime version: longer than 128 bytes", plegvet.ErrNotARuntimeVersion},
		{"", "containerd://" + long, `version "containerd://1.7.27~xxxxxxxxxxxxxxxxxxxx"… (10260 bytes): not a runtime version: longer than 128 bytes`, plegvet.ErrNotARuntimeVersion},
		{long, "1.7.27", "runtime name " + prefix + ": longer than 128 bytes", nil},
	} {
		_, err := plegvet.RuntimeStreams(context.Background(), tc.name, tc.version, plegvet.FetchOptions{})
		if err == nil || err.Error() != tc.want || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("RuntimeStreams(%d bytes, %d bytes): %v\nwant %s", len(tc.name), len(tc.version), err, tc.want)
		}
	}
	if _, err := plegvet.RuntimeStreamsDir(context.Background(), long, t.TempDir(), plegvet.FetchOptions{}); err == nil || err.Error() != "runtime name "+prefix+": longer than 128 bytes" {
		t.Errorf("RuntimeStreamsDir with a name of %d bytes: %v", len(long), err)
	}
	// At the limit, a version is read (and its fetch fails: GOPROXY=off).
	atLimit := "1.7.999~" + strings.Repeat("x", plegvet.MaxRuntimeVersionLen-len("1.7.999~"))
	if _, err := plegvet.RuntimeStreams(context.Background(), "containerd", atLimit, plegvet.FetchOptions{}); !errors.Is(err, plegvet.ErrProxyRefused) {
		t.Errorf("RuntimeStreams of %d bytes: %v, want the fetch's error", len(atLimit), err)
	}
}

func TestRuntimeStreamsErrors(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	for _, tc := range []struct {
		name, version string
		is            error
	}{
		{"containerd", "1.7", plegvet.ErrNotARuntimeVersion},
		{"containerd", "latest", plegvet.ErrNotARuntimeVersion},
		{"cri-o", "containerd://1.7.27", plegvet.ErrRuntimeMismatch},
		{"", "1.7.27", plegvet.ErrNoRuntime},
		{"containerd", "://1.7.27", plegvet.ErrRuntimeMismatch},
		{"containerd", "v1.7.0-0.20230101000000-abcdef123456", plegvet.ErrNotARuntimeVersion}, // its base would be v1.7.-1
	} {
		_, err := plegvet.RuntimeStreams(context.Background(), tc.name, tc.version, plegvet.FetchOptions{})
		if !errors.Is(err, tc.is) {
			t.Errorf("RuntimeStreams(%q, %q): %v, want %v", tc.name, tc.version, err, tc.is)
		}
	}
	if _, err := plegvet.RuntimeStreamsDir(context.Background(), "", t.TempDir(), plegvet.FetchOptions{}); err == nil || !strings.Contains(err.Error(), "no go.mod") {
		t.Errorf("a directory without go.mod: %v", err)
	}
}

// TestRuntimeStreamsFetched fetches look-alike CRI-O releases with the go
// command from a module proxy made here (GOPROXY=file://...): the whole
// path, from a version as a node reports it to the verdict, without the
// network. The real proxy does not serve github.com/cri-o/cri-o.
func TestRuntimeStreamsFetched(t *testing.T) {
	proxy := t.TempDir()
	serve(t, proxy, "github.com/cri-o/cri-o", "v1.31.0", lookalike(t, "crio"))
	serve(t, proxy, "github.com/cri-o/cri-o", "v1.25.0", lookalike(t, "spoof"))
	serve(t, proxy, "github.com/cri-o/cri-o", "v1.31.1-0.20240101000000-abcdef123456", lookalike(t, "crio"))
	v2 := lookalike(t, "streaming")
	if err := os.WriteFile(filepath.Join(v2, "go.mod"), []byte("module github.com/containerd/containerd/v2\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	serve(t, proxy, "github.com/containerd/containerd/v2", "v2.0.0-20240101000000-abcdef123456", v2)
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-modcacherw")
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOTOOLCHAIN", "local")
	for _, tc := range []struct {
		name, version, moduleVersion, streams, pos, why string
	}{
		{"cri-o", "1.31.0", "v1.31.0", "true", "server/cri/v1/events.go:7", "sends events on the stream"},
		{"", "cri-o://1.31.0", "v1.31.0", "true", "server/cri/v1/events.go:7", "version cri-o://1.31.0 is github.com/cri-o/cri-o@v1.31.0:"},
		{"crio", "1.25.0-1.el9", "v1.25.0", "false", "server/cri/v1/events.go:7", `("-1.el9" dropped: a distribution's or a build's suffix`},
		{"cri-o", "1.99.0", "v1.99.0", "null", "null", "cannot fetch github.com/cri-o/cri-o@v1.99.0 with the go command"},
		// A pseudo-version is fetched as itself: the commit built.
		{"cri-o", "1.31.1-0.20240101000000-abcdef123456", "v1.31.1-0.20240101000000-abcdef123456", "true", "server/cri/v1/events.go:7",
			"version 1.31.1-0.20240101000000-abcdef123456 is github.com/cri-o/cri-o@v1.31.1-0.20240101000000-abcdef123456 (a pseudo-version: commit abcdef123456 of 2024-01-01 00:00:00 UTC, after v1.31.0): "},
		{"containerd", "v2.0.0-20240101000000-abcdef123456", "v2.0.0-20240101000000-abcdef123456", "true", "rtsrv/events.go:7", "(a pseudo-version: commit abcdef123456 of 2024-01-01 00:00:00 UTC, with no v2 tag before it)"},
	} {
		rep, err := plegvet.RuntimeStreams(context.Background(), tc.name, tc.version, plegvet.FetchOptions{})
		if err != nil {
			t.Errorf("RuntimeStreams(%q, %q): %v", tc.name, tc.version, err)
			continue
		}
		runtime, module := "cri-o", "github.com/cri-o/cri-o"
		if tc.name == "containerd" {
			runtime, module = "containerd", "github.com/containerd/containerd/v2"
		}
		if rep.Runtime != runtime || rep.Module != module || rep.ModuleVersion != tc.moduleVersion || verdictText(rep.StreamsEvents) != tc.streams || posText(rep.Pos) != tc.pos || !strings.Contains(rep.Why, tc.why) {
			t.Errorf("RuntimeStreams(%q, %q) = %s %s@%s, streams %s at %s, why %q; want %s@%s, %s at %s, why with %q",
				tc.name, tc.version, rep.Runtime, rep.Module, rep.ModuleVersion, verdictText(rep.StreamsEvents), posText(rep.Pos), rep.Why, module, tc.moduleVersion, tc.streams, tc.pos, tc.why)
		}
		if tc.streams != "null" && rep.Source.Dir != module+"@"+tc.moduleVersion {
			t.Errorf("source %q", rep.Source.Dir)
		}
	}
}

// serve puts a module version in a GOPROXY directory.
func serve(t *testing.T, proxy, path, version, dir string) {
	t.Helper()
	at := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	z, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	if err := modzip.CreateFromDir(z, module.Version{Path: path, Version: version}, dir); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		version + ".mod":  string(gomod),
		version + ".info": fmt.Sprintf(`{"Version":%q}`, version),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(at, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list, _ := os.ReadFile(filepath.Join(at, "list"))
	if err := os.WriteFile(filepath.Join(at, "list"), append(list, version+"\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRuntimeStreamsContainerd fetches containerd releases from the
// module proxy, as a user would: v1.6 answers Unimplemented (its
// instrumented service hands the stream to the CRI service, which
// refuses), v1.7's two CRI servers both stream, v2 streams through its
// plugin's embedded RuntimeServiceServer. The versions are given as
// distributions and nodes report them.
func TestRuntimeStreamsContainerd(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches containerd releases with the go command")
	}
	for _, tc := range []struct {
		version, module, moduleVersion, streams string
		servers                                 []string // FILE:LINE SHAPE of each server, the first decides
		pos                                     string   // where the verdict is given, when not at the first server
	}{
		{"1.6.20~ds1", "github.com/containerd/containerd", "v1.6.20", "false", []string{"pkg/cri/server/container_events.go:25 unimplemented"}, ""},
		{"v1.6.38", "github.com/containerd/containerd", "v1.6.38", "false", []string{"pkg/cri/server/container_events.go:25 unimplemented"}, ""},
		{"containerd://1.7.27", "github.com/containerd/containerd", "v1.7.27", "true", []string{"pkg/cri/sbserver/container_events.go:23 sends", "pkg/cri/server/container_events.go:23 sends"}, ""},
		{"2.1.4-1ubuntu1", "github.com/containerd/containerd/v2", "v2.1.4", "true", []string{"internal/cri/server/container_events.go:23 sends"}, ""},
		// Before 1.6.12 the CRI API containerd builds on has no event
		// stream: its service has no such method, which the API decides.
		{"1.6.8", "github.com/containerd/containerd", "v1.6.8", "false", []string{"pkg/cri/server/instrumented_service.go:32 no-method"}, "go.mod:75"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			rep, err := plegvet.RuntimeStreams(context.Background(), "containerd", tc.version, plegvet.FetchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Module != tc.module || rep.ModuleVersion != tc.moduleVersion || verdictText(rep.StreamsEvents) != tc.streams {
				t.Errorf("%s@%s streams %s, want %s@%s %s; why %s", rep.Module, rep.ModuleVersion, verdictText(rep.StreamsEvents), tc.module, tc.moduleVersion, tc.streams, rep.Why)
			}
			var got []string
			for _, s := range rep.Servers {
				got = append(got, fmt.Sprintf("%s:%d %s", s.Pos.File, s.Pos.Line, s.Shape))
			}
			if strings.Join(got, ", ") != strings.Join(tc.servers, ", ") {
				t.Errorf("servers %v, want %v", got, tc.servers)
			}
			want, _, _ := strings.Cut(tc.servers[0], " ")
			if tc.pos != "" {
				want = tc.pos
			}
			if posText(rep.Pos) != want {
				t.Errorf("decided at %s, want %s", posText(rep.Pos), want)
			}
			if len(rep.Source.Load.Problems) > 0 {
				t.Errorf("problems: %v", rep.Source.Load.Problems)
			}
			for _, s := range rep.Servers {
				if len(s.Via) == 0 || !strings.Contains(s.Via[0].What, "RegisterRuntimeServiceServer") {
					t.Errorf("%s is not reached from a registration: %+v", s.Method, s.Via)
				}
			}
		})
	}
}

// RuntimeStreamsDir reads a runtime's checkout (here a CRI-O look-alike
// of internal/load/runtimeread/testdata); RuntimeStreams(ctx, "containerd",
// "1.6.20~ds1") fetches the release a version names instead.
func ExampleRuntimeStreamsDir() {
	ar, err := txtar.ParseFile("internal/load/runtimeread/testdata/shapes/crio.txtar")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "crio-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	rep, err := plegvet.RuntimeStreamsDir(context.Background(), "", dir, plegvet.FetchOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%s) streams events: %t, decided at %s:%d\n", rep.Runtime, rep.Module, *rep.StreamsEvents, rep.Pos.File, rep.Pos.Line)
	s := rep.Servers[0]
	fmt.Printf("%s: %s, reached from %s\n", s.Method, s.Shape, s.Via[0].What)
	// Output:
	// cri-o (github.com/cri-o/cri-o) streams events: true, decided at server/cri/v1/events.go:7
	// server/cri/v1.(*service).GetContainerEvents: sends, reached from registered with pb.RegisterRuntimeServiceServer
}
