package release

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fileProxy serves the given k8s.io/kubernetes versions (their .info and
// a go.mod) from a GOPROXY=file:// directory, and points the go command
// at it with a module cache of its own: no network.
func fileProxy(t *testing.T, versions ...string) {
	t.Helper()
	proxy := t.TempDir()
	dir := filepath.Join(proxy, "k8s.io", "kubernetes", "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		info, _ := json.Marshal(struct{ Version string }{v})
		if err := os.WriteFile(filepath.Join(dir, v+".info"), info, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, v+".mod"), []byte("module k8s.io/kubernetes\n\ngo 1.22\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "list"), []byte(strings.Join(versions, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-modcacherw")
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOTOOLCHAIN", "local")
}

// A range answers nothing before its first version nor after its last;
// pre-releases come in only when asked for, and a minor whose only
// versions are pre-releases then gives its newest.
func TestRangeBounds(t *testing.T) {
	fileProxy(t, "v1.36.4", "v1.36.5", "v1.37.0-rc.0", "v1.37.0-rc.1", "v1.37.0", "v1.37.1", "v1.37.2", "v1.38.0-alpha.1", "v1.38.0-beta.0")
	ctx := context.Background()
	for _, tc := range []struct {
		spec string
		pre  bool
		want string
	}{
		{"v1.36.0..v1.37.0-rc.1", false, "v1.36.5"},
		{"v1.36.0..v1.37.0-rc.1", true, "v1.36.5 v1.37.0-rc.1"},
		{"v1.36.0..v1.37.0-rc.0", true, "v1.36.5 v1.37.0-rc.0"},
		{"v1.36.6..v1.37.2", false, "v1.37.2"},
		{"v1.36.5..v1.37.1", false, "v1.36.5 v1.37.1"},
		{"v1.36..v1.37", false, "v1.36.5 v1.37.2"},
		{"v1.37.0..v1.38.0", true, "v1.37.2 v1.38.0-beta.0"},
		{"v1.37..v1.38.0-alpha.1", true, "v1.37.2 v1.38.0-alpha.1"},
		{"v1.37,v1.38", true, "v1.37.2 v1.38.0-beta.0"},
		{"v1.37.0..v1.38.0-beta.0", false, "v1.37.2"},
		{"v1.37.0..v1.38.0-beta.0", true, "v1.37.2 v1.38.0-beta.0"},
		{"v1.36.1,v1.38.0-beta.0", false, "v1.36.1 v1.38.0-beta.0"}, // named in full: as named
	} {
		got, err := Fetcher{PreReleases: tc.pre}.Range(ctx, tc.spec)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("Range(%q, pre-releases %v) = %v, %v; want %s", tc.spec, tc.pre, got, err, tc.want)
		}
	}
	if got, err := (Fetcher{}).Resolve(ctx, "v1.38"); err == nil || !strings.Contains(err.Error(), "serves no v1.38 patch") {
		t.Errorf("Resolve(v1.38) without pre-releases = %q, %v; want an error", got, err)
	}
	if got, err := (Fetcher{PreReleases: true}).Resolve(ctx, "v1.38"); got != "v1.38.0-beta.0" || err != nil {
		t.Errorf("Resolve(v1.38) with pre-releases = %q, %v; want v1.38.0-beta.0", got, err)
	}
}

// A list that holds a range is named as such, before any go command.
func TestRangeListAndRange(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no go command to run
	for _, spec := range []string{"v1.25.0,v1.26.0..v1.30.0", "v1.26.0..v1.30.0,v1.31.0"} {
		_, err := Fetcher{}.Range(context.Background(), spec)
		want := `"` + spec + `": a comma list and a range mixed; want a comma list`
		if !errors.Is(err, ErrListAndRange) || err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Range(%q) = %v; want ErrListAndRange, %q...", spec, err, want)
		}
	}
}

// fakeGo puts on PATH a go command that answers as one does under
// GOTOOLCHAIN=local for a release whose go line is newer than itself
// (download: why, per module, in -json's Error; list -m @latest:
// v1.37.2; list -m of a version by name: served).
func fakeGo(t *testing.T, why string) {
	t.Helper()
	bin := t.TempDir()
	script := `#!/bin/sh
case "$1 $2" in
"mod download")
	shift 3
	for m in "$@"; do
		printf '{"Path":"%s","Version":"%s","Error":"%s %s"}\n' "${m%@*}" "${m#*@}" "$m" '` + why + `'
	done
	exit 1;;
"list -m")
	for a in "$@"; do
		case "$a" in
		*@latest) echo v1.37.2; exit 0;;
		*@*) echo "${a#*@} ok";;
		esac
	done;;
"env GOPROXY") echo https://proxy.example;;
esac
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// A served pre-release the go command refuses for its own Go version is
// said in one line, with the go command's words and what to do, never as
// a release that does not exist.
func TestFetchGoTooOld(t *testing.T) {
	fakeGo(t, "requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)")
	_, err := Fetcher{}.Fetch(context.Background(), "v1.38.0-beta.0", true)
	if err == nil {
		t.Fatal("no error")
	}
	want := "cannot fetch k8s.io/kubernetes@v1.38.0-beta.0 with the go command: k8s.io/kubernetes@v1.38.0-beta.0 requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local); want a go command of Go 1.27.0 or later (on PATH, or GOTOOLCHAIN=auto, with which the go command fetches it from the module proxy)"
	if err.Error() != want {
		t.Errorf("Fetch = %q\nwant %q", err, want)
	}
	if !errors.Is(err, ErrGoTooOld) || !errors.Is(err, ErrProxyRefused) || errors.Is(err, ErrNoSuchRelease) {
		t.Errorf("Fetch = %v; want ErrGoTooOld and ErrProxyRefused, not ErrNoSuchRelease", err)
	}
}

// A version after the newest release that the proxy lists all the same
// (a pre-release) and still does not serve keeps the go command's words.
func TestFetchListedPreRelease(t *testing.T) {
	fakeGo(t, "verifying module: checksum mismatch")
	_, err := Fetcher{}.Fetch(context.Background(), "v1.38.0-beta.0", false)
	if errors.Is(err, ErrNoSuchRelease) || !errors.Is(err, ErrProxyRefused) || err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Errorf("Fetch = %v; want the go command's words, not ErrNoSuchRelease", err)
	}
}
