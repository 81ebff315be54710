package runtimestream

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
)

func TestMapVersion(t *testing.T) {
	for _, tc := range []struct {
		in, runtime, version, dropped string
	}{
		{"1.6.20~ds1", "", "v1.6.20", "~ds1"},                     // Debian bookworm's containerd
		{"1.6.20~ds1-1+deb12u3", "", "v1.6.20", "~ds1-1+deb12u3"}, // the package version, as dpkg prints it
		{"v1.7.27", "", "v1.7.27", ""},
		{"1.7.27", "", "v1.7.27", ""},
		{"2.1.4-1ubuntu1", "", "v2.1.4", "-1ubuntu1"},
		{"1.7.27-0ubuntu1~24.04.1", "", "v1.7.27", "-0ubuntu1~24.04.1"},
		{"containerd://1.7.27", "containerd", "v1.7.27", ""},
		{"cri-o://1.31.0", "cri-o", "v1.31.0", ""},
		{"containerd://2.0.0-rc.1", "containerd", "v2.0.0-rc.1", ""},
		{"1.7.0-beta.3", "", "v1.7.0-beta.3", ""},
		{"2.0.0-rc1", "", "v2.0.0-rc1", ""},
		{"1.7.27-k3s1", "", "v1.7.27", "-k3s1"},
		{"1.7.24-1.el9", "", "v1.7.24", "-1.el9"},
		{"1:1.6.20~ds1-1", "", "v1.6.20", "1:~ds1-1"},
		{"v1.7.27+unknown", "", "v1.7.27", "+unknown"},
		{" 1.7.27\n", "", "v1.7.27", ""},
	} {
		got, err := MapVersion(tc.in)
		if err != nil {
			t.Errorf("MapVersion(%q): %v", tc.in, err)
			continue
		}
		if got.Runtime != tc.runtime || got.ModuleVersion != tc.version || got.Dropped != tc.dropped {
			t.Errorf("MapVersion(%q) = %+v, want runtime %q, version %s, dropped %q", tc.in, got, tc.runtime, tc.version, tc.dropped)
		}
	}
}

func TestMapVersionRefuses(t *testing.T) {
	for _, in := range []string{"", "1.7", "v2", "abc", "1.7.x", "01.7.2", "1.7.27.4", "containerd://", "~ds1", "-1ubuntu1", "1..2", "v", "1.7.27-beta..1"} {
		got, err := MapVersion(in)
		if err == nil {
			t.Errorf("MapVersion(%q) = %+v, want an error", in, got)
			continue
		}
		if !errors.Is(err, ErrNotAVersion) || strings.Contains(err.Error(), "\n") {
			t.Errorf("MapVersion(%q): %q, want one line wrapping ErrNotAVersion", in, err)
		}
	}
}

// TestMapVersionPseudo: a Go pseudo-version (a runtime built from a
// commit) is kept whole, as the module version to fetch: the release its
// numbers name is later than the commit, and its base release earlier. A
// distribution's revision that starts with 0 (1.7.0-0ubuntu1) is not one.
func TestMapVersionPseudo(t *testing.T) {
	for _, tc := range []struct {
		in, version, dropped, words string
	}{
		{"v2.0.0-20240101000000-abcdef123456", "v2.0.0-20240101000000-abcdef123456", "", "a pseudo-version: commit abcdef123456 of 2024-01-01 00:00:00 UTC, with no v2 tag before it"},
		{"containerd://2.0.0-20240101000000-abcdef123456", "v2.0.0-20240101000000-abcdef123456", "", "with no v2 tag before it"},
		{"v1.6.21-0.20230101000000-abcdef123456", "v1.6.21-0.20230101000000-abcdef123456", "", "a pseudo-version: commit abcdef123456 of 2023-01-01 00:00:00 UTC, after v1.6.20"},
		{"v2.0.0-rc.1.0.20240101000000-abcdef123456", "v2.0.0-rc.1.0.20240101000000-abcdef123456", "", "after v2.0.0-rc.1"},
		{"v0.0.0-20240101000000-abcdef123456", "v0.0.0-20240101000000-abcdef123456", "", "with no v0 tag before it"},
		{"1:v1.6.21-0.20230101000000-abcdef123456+dirty", "v1.6.21-0.20230101000000-abcdef123456", "1:+dirty", "after v1.6.20"},
		{"1.7.0-0ubuntu1", "v1.7.0", "-0ubuntu1", ""},
		{"1.7.27-12-gabcdef0", "v1.7.27", "-12-gabcdef0", ""},
	} {
		got, err := MapVersion(tc.in)
		if err != nil {
			t.Errorf("MapVersion(%q): %v", tc.in, err)
			continue
		}
		if got.ModuleVersion != tc.version || got.Dropped != tc.dropped {
			t.Errorf("MapVersion(%q) = %s, dropped %q; want %s, dropped %q", tc.in, got.ModuleVersion, got.Dropped, tc.version, tc.dropped)
		}
		words, ok := Pseudo(got.ModuleVersion)
		if ok != (tc.words != "") || !strings.Contains(words, tc.words) {
			t.Errorf("Pseudo(%s) = %q, %t; want %q", got.ModuleVersion, words, ok, tc.words)
		}
	}
	// Pseudo-versions the go command would refuse are no version.
	for _, in := range []string{"v1.7.0-0.20230101000000-abcdef123456", "v2.0.0-99999999999999-abcdef123456"} {
		if got, err := MapVersion(in); !errors.Is(err, ErrNotAVersion) || !strings.Contains(err.Error(), "pseudo-version") {
			t.Errorf("MapVersion(%q) = %+v, %v; want ErrNotAVersion, saying why the pseudo-version is invalid", in, got, err)
		}
	}
}

// TestMapVersionTooLong: a version longer than MaxVersionLen is refused
// in one short line that quotes its first 40 bytes, once, and its length.
func TestMapVersionTooLong(t *testing.T) {
	long := "1.7.27~" + strings.Repeat("x", 10240)
	atLimit := "1.7.27~" + strings.Repeat("x", MaxVersionLen-len("1.7.27~"))
	if got, err := MapVersion(atLimit); err != nil || got.ModuleVersion != "v1.7.27" {
		t.Errorf("MapVersion of %d bytes: %+v, %v", len(atLimit), got, err)
	}
	for _, tc := range []struct{ in, want string }{
		{long, `"1.7.27~xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (10247 bytes): not a runtime version: longer than 128 bytes`},
		{atLimit + "x", `"1.7.27~xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (129 bytes): not a runtime version: longer than 128 bytes`},
		// A cut falls where a character begins.
		{"a" + strings.Repeat("é", 100), `"a` + strings.Repeat("é", 19) + `"… (201 bytes): not a runtime version: longer than 128 bytes`},
		// Control characters are escaped, not written.
		{strings.Repeat("\x00", 200), `"` + strings.Repeat(`\x00`, 40) + `"… (200 bytes): not a runtime version: longer than 128 bytes`},
	} {
		_, err := MapVersion(tc.in)
		if !errors.Is(err, ErrNotAVersion) || err.Error() != tc.want {
			t.Errorf("MapVersion of %d bytes: %v\nwant %s", len(tc.in), err, tc.want)
		}
	}
	if q := QuoteShort("1.7.27"); q != `"1.7.27"` {
		t.Errorf("QuoteShort(1.7.27) = %s", q)
	}
}

func TestModulePath(t *testing.T) {
	ctrd, _ := Lookup("containerd")
	crio, _ := Lookup(" CRI-O ")
	alias, ok := Lookup("crio")
	if !ok || alias.Name != "cri-o" || crio.Name != "cri-o" {
		t.Fatalf("Lookup: crio %+v %v, CRI-O %+v", alias, ok, crio)
	}
	if _, ok := Lookup("docker"); ok {
		t.Error("docker is known")
	}
	for _, tc := range []struct {
		rt       Runtime
		version  string
		wantPath string
	}{
		{ctrd, "v1.6.38", "github.com/containerd/containerd"},
		{ctrd, "v1.7.27", "github.com/containerd/containerd"},
		{ctrd, "v2.1.4", "github.com/containerd/containerd/v2"},
		{ctrd, "v2.0.0-rc.1", "github.com/containerd/containerd/v2"},
		{crio, "v1.31.0", "github.com/cri-o/cri-o"},
	} {
		if got := tc.rt.ModulePath(tc.version); got != tc.wantPath {
			t.Errorf("%s.ModulePath(%s) = %s, want %s", tc.rt.Name, tc.version, got, tc.wantPath)
		}
	}
}

// FuzzMapVersion: whatever the text, MapVersion does not panic; what it
// accepts is a canonical semantic version that MapVersion reads back as
// itself, whose numbers appear in the text, and nothing but the scheme,
// the 'v' and what Dropped says was taken off.
func FuzzMapVersion(f *testing.F) {
	for _, s := range []string{"1.6.20~ds1", "v1.7.27", "2.1.4-1ubuntu1", "containerd://1.7.27", "1:1.6.20~ds1-1", "2.0.0-rc.1", "1.7", "", "cri-o://v1.31.0+dev", "v2.0.0-20240101000000-abcdef123456", "1.6.21-0.20230101000000-abcdef123456~ds1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := MapVersion(s)
		if err != nil {
			if !errors.Is(err, ErrNotAVersion) {
				t.Fatalf("MapVersion(%q): %v does not wrap ErrNotAVersion", s, err)
			}
			return
		}
		v := got.ModuleVersion
		if !semver.IsValid(v) || semver.Canonical(v) != v {
			t.Fatalf("MapVersion(%q) = %q, not canonical", s, v)
		}
		again, err := MapVersion(v)
		if err != nil || again.ModuleVersion != v || again.Dropped != "" || again.Runtime != "" {
			t.Fatalf("MapVersion(%q) = %+v, %v; want %s back as itself", v, again, err, v)
		}
		core := strings.TrimPrefix(strings.TrimSuffix(v, semver.Prerelease(v)), "v")
		if !strings.Contains(s, core) {
			t.Fatalf("MapVersion(%q) = %s, whose numbers the text does not hold", s, v)
		}
		// Nothing is lost unsaid: the text, less its scheme, is the version
		// (and maybe a 'v') with what Dropped says.
		rest := strings.TrimSpace(s)
		if got.Runtime != "" {
			rest = strings.TrimPrefix(rest, got.Runtime+"://")
		}
		if n := len(strings.TrimPrefix(v, "v")) + len(got.Dropped); n != len(rest) && n+1 != len(rest) {
			t.Fatalf("MapVersion(%q) = %+v: %d bytes of %q unaccounted for", s, got, len(rest)-n, rest)
		}
	})
}
