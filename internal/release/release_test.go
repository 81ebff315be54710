package release

import (
	"context"
	"strings"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.36.1": "v1.36.1", "1.36.1": "v1.36.1", " v1.25.0 ": "v1.25.0", "v1.37.0-beta.0": "v1.37.0-beta.0",
		"v1.36": "", "v2.0.0": "", "latest": "", "": "", "v1.36.1.2": "", "v1.x.1": "", "v1.36.1-foo": "",
	} {
		got, err := ParseVersion(in)
		if want == "" {
			if err == nil || !strings.Contains(err.Error(), "want v1.MINOR.PATCH") {
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
	_, err := Fetch(context.Background(), "v1.36.999", true)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "cannot fetch k8s.io/kubernetes@v1.36.999 with the go command: ") || !strings.Contains(msg, "GOPROXY=off") || strings.Contains(msg, "\n") {
		t.Errorf("error = %q", msg)
	}
}
