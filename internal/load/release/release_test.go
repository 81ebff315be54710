package release

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.36.1": "v1.36.1", "1.36.1": "v1.36.1", " v1.25.0 ": "v1.25.0", "v1.37.0-beta.0": "v1.37.0-beta.0",
		"v1.36": "", "v2.0.0": "", "latest": "", "": "", "v1.36.1.2": "", "v1.x.1": "", "v1.36.1-foo": "",
		"v1.036.1": "", "v1.36.1+build": "", "v1.99999999999999999999.0": "",
	} {
		got, err := ParseVersion(in)
		if want == "" {
			if !errors.Is(err, ErrNotARelease) || !strings.Contains(err.Error(), "want v1.MINOR.PATCH") || strings.Contains(err.Error(), "-k8s") {
				t.Errorf("ParseVersion(%q) = %q, %v; want an error", in, got, err)
			}
			continue
		}
		if got != want || err != nil {
			t.Errorf("ParseVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got := StagingVersion("v1.36.1"); got != "v0.36.1" {
		t.Errorf("StagingVersion = %q", got)
	}
}

// With the proxy off, the error is one line naming the module and the
// go command's reason.
func TestFetchOffline(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	_, err := Fetcher{}.Fetch(context.Background(), "v1.36.999", true)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !errors.Is(err, ErrProxyRefused) {
		t.Errorf("error %q is not ErrProxyRefused", msg)
	}
	if !strings.HasPrefix(msg, "cannot fetch k8s.io/kubernetes@v1.36.999 with the go command: ") || !strings.Contains(msg, "GOPROXY=off") || strings.Contains(msg, "\n") {
		t.Errorf("error = %q", msg)
	}
}

// A release after the newest the proxy serves is named as no release,
// with that newest (asked of the proxy, not written here); one the proxy
// serves is not.
func TestNoSuchRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("asks the module proxy")
	}
	ctx := context.Background()
	out, _, err := Fetcher{}.runGo(ctx, "test", t.TempDir(), "list", "-m", "-f", "{{.Version}}", "k8s.io/kubernetes@latest")
	if err != nil {
		t.Skipf("the module proxy does not answer: %v", err)
	}
	newest := strings.TrimSpace(string(out))
	_, err = Fetcher{}.Fetch(ctx, "v1.999.0", false)
	if !errors.Is(err, ErrNoSuchRelease) || !errors.Is(err, ErrProxyRefused) {
		t.Fatalf("Fetch(v1.999.0) = %v; want ErrNoSuchRelease and ErrProxyRefused", err)
	}
	want := "k8s.io/kubernetes@v1.999.0: no such Kubernetes release: the newest the module proxy serves is " + newest
	if err.Error() != want {
		t.Errorf("Fetch(v1.999.0) = %q\nwant %q", err, want)
	}
	if err := (Fetcher{}).unserved(ctx, newest, errors.New("refused")); errors.Is(err, ErrNoSuchRelease) || !strings.Contains(err.Error(), "refused (the newest release the module proxy serves is "+newest+")") {
		t.Errorf("unserved(%s) = %v; want the go command's words and the newest", newest, err)
	}
}

func TestRangeLists(t *testing.T) {
	got, err := Fetcher{}.Range(context.Background(), "v1.25.0, 1.30.2 ,v1.36.1")
	if err != nil || strings.Join(got, " ") != "v1.25.0 v1.30.2 v1.36.1" {
		t.Errorf("Range(list) = %v, %v", got, err)
	}
	for spec, want := range map[string]string{
		"v1.30.0,latest":   `"latest": not a Kubernetes release version`,
		"v1.37.0..v1.26.0": `"v1.37.0..v1.26.0": the range goes down from minor 37 to 26`,
		"v1.37..v1.26.0":   `"v1.37..v1.26.0": the range goes down from minor 37 to 26`,
		"v1.30.0..v1.x":    `"v1.x": not a Kubernetes release version`,
		"v1.30.0..":        `"": not a Kubernetes release version`,
		"v1.30.0,v2.1":     `"v2.1": not a Kubernetes release version`,
	} {
		_, err := Fetcher{}.Range(context.Background(), spec)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Range(%q) = %v, want an error starting %q", spec, err, want)
		}
		if !errors.Is(err, ErrNotARelease) && !errors.Is(err, ErrRangeGoesDown) {
			t.Errorf("Range(%q) = %v, neither ErrNotARelease nor ErrRangeGoesDown", spec, err)
		}
	}
}

// A release resolves to itself without the go command; a minor, with the
// proxy off, fails with the go command's words.
func TestResolve(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	for in, want := range map[string]string{"v1.36.1": "v1.36.1", " 1.37.0-rc.1": "v1.37.0-rc.1"} {
		if got, err := (Fetcher{}).Resolve(context.Background(), in); got != want || err != nil {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := (Fetcher{}).Resolve(context.Background(), "1.x"); !errors.Is(err, ErrNotARelease) {
		t.Errorf("Resolve(1.x) = %q, %v; want ErrNotARelease", got, err)
	}
	got, err := Fetcher{}.Resolve(context.Background(), "v1.20") // not in any module cache here
	if !errors.Is(err, ErrProxyRefused) || !strings.Contains(err.Error(), "serves no v1.20 patch") || !strings.Contains(err.Error(), "GOPROXY=off") {
		t.Errorf("Resolve(v1.20) = %q, %v; want ErrProxyRefused naming GOPROXY=off", got, err)
	}
	// In a list, a minor is resolved and its failure is the list's.
	if _, err := (Fetcher{}).Range(context.Background(), "v1.36.1,v1.20"); !errors.Is(err, ErrProxyRefused) {
		t.Errorf("Range(list with a minor) = %v; want ErrProxyRefused", err)
	}
	if _, err := (Fetcher{}).Fetch(context.Background(), "v1.20", false); !errors.Is(err, ErrProxyRefused) {
		t.Errorf("Fetch(v1.20) = %v; want ErrProxyRefused", err)
	}
}

// With the proxy off, a range names what failed instead of being empty.
func TestRangeOffline(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	_, err := Fetcher{}.Range(context.Background(), "v1.20.0..v1.20.3") // not in any module cache here
	if !errors.Is(err, ErrProxyRefused) || !strings.Contains(err.Error(), "serves no v1.20 patch") || !strings.Contains(err.Error(), "GOPROXY=off") {
		t.Errorf("err = %v", err)
	}
}

// FuzzParseVersion: any -k8s argument gives a canonical version or one
// error line, never a panic, and canonical versions are fixed points.
func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"v1.36.1", "1.25.0", "v1.37.0-beta.0", "v1.x", "", "v1.36.1..v1.37.2", "v1.1.1,v1.2.2", "v1.99999999999999999999.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseVersion(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "want v1.MINOR.PATCH") {
				t.Errorf("error %q", err)
			}
			return
		}
		if again, err := ParseVersion(v); err != nil || again != v {
			t.Errorf("ParseVersion(%q) = %q, then %q, %v", s, v, again, err)
		}
		_ = StagingVersion(v)
	})
}
