package kubeversion

import (
	"regexp"
	"strconv"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{
		"1.26": "1.26", "v1.26": "1.26", " 1.26.3 ": "1.26.3", "v1.36.0-beta.0": "1.36.0-beta.0", "1.0": "1.0",
		"v1.37.0-alpha.1.120": "1.37.0-alpha.1.120", "2.0.1": "2.0.1",
		"1": "", "v1": "", "1.x": "", "01.2": "", "1.02": "", "1.2.3.4": "", "": "", "-1.2": "", "1..2": "",
		"vv1.2": "", "V1.2": "", "1.2-beta.0": "", "1.2.3+build": "", "1.2.3-": "", "1.2.3-alpha.01": "",
		"1.4294967296": "", "1.4294967295": "1.4294967295",
	} {
		v, ok := Parse(in)
		got := ""
		if ok {
			got = v.String()
		}
		if got != want {
			t.Errorf("Parse(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseKubelet(t *testing.T) {
	for in, want := range map[string]string{
		"v1.36.1": "v1.36.1", "1.36.1": "v1.36.1", "v1.36.10": "v1.36.10",
		"v1.36.1-eks-4f4795d": "v1.36.1", "v1.30.4+k3s1": "v1.30.4", "v1.36.1.5": "v1.36.1",
		"v1.37.0-alpha.1": "v1.37.0-alpha.1", "v1.37.0-alpha.1.120+0123abcd": "v1.37.0-alpha.1",
		"v1.37.0-rc.0": "v1.37.0-rc.0", "v1.37.0-alpha.01": "v1.37.0", "v1.37.0-alpha.1x": "v1.37.0",
		"v1.37.0-gamma.1": "v1.37.0",
		"v1.36":           "", "v2.0.0": "", "v1.036.1": "", "v1.36.01": "", "v1.36.1x": "", "": "", "latest": "",
		" v1.36.1": "", "vv1.36.1": "", "v 1.36.1": "", "v1.36.1 ": "",
	} {
		v, ok := ParseKubelet(in)
		got := ""
		if ok {
			got = v.Semver()
		}
		if got != want {
			t.Errorf("ParseKubelet(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsRelease(t *testing.T) {
	for in, want := range map[string]bool{
		"v1.36.1": true, "v1.37.0-beta.0": true, "v1.37.0-rc.12": true,
		"v1.36": false, "v2.0.0": false, "v1.36.1-foo": false, "v1.36.1-alpha": false, "v1.36.1-alpha.1.2": false,
	} {
		v, ok := Parse(in)
		if !ok {
			t.Fatalf("Parse(%q) failed", in)
		}
		if v.IsRelease() != want {
			t.Errorf("%s.IsRelease() = %t", in, !want)
		}
	}
}

func TestOrder(t *testing.T) {
	ordered := []string{"1.25", "1.25.1", "1.26.0-alpha.0", "1.26.0-alpha.1", "1.26.0-beta.0", "1.26", "1.26.1", "1.100"}
	for i, a := range ordered {
		va, _ := Parse(a)
		for j, b := range ordered {
			vb, _ := Parse(b)
			if got := va.Less(vb); got != (i < j) {
				t.Errorf("%s.Less(%s) = %t", a, b, got)
			}
		}
	}
	minor, _ := Parse("1.26")
	zero, _ := Parse("1.26.0")
	if minor.Less(zero) || zero.Less(minor) {
		t.Error("1.26 and 1.26.0 are not the same version")
	}
	v, _ := Parse("v1.36.2-rc.1")
	if got := v.MajorMinor().String(); got != "1.36" {
		t.Errorf("MajorMinor = %s", got)
	}
	if got := v.WithPatch(4).Semver(); got != "v1.36.4" {
		t.Errorf("WithPatch = %s", got)
	}
	if m, _ := Parse("1.36"); !m.IsMinor() || v.IsMinor() {
		t.Error("IsMinor")
	}
}

// kubeletRE is the pattern ParseKubelet replaced: it must accept what the
// pattern accepted, with the same release, apart from numbers beyond 32
// bits, which no kubelet has.
var kubeletRE = regexp.MustCompile(`^v?(1\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)(?:-(?:alpha|beta|rc)\.(?:0|[1-9]\d*))?)(?:[-+.].*)?$`)

var bigNumber = regexp.MustCompile(`\d{10,}`)

func FuzzParseKubelet(f *testing.F) {
	for _, s := range []string{"v1.36.1", "v1.36.1-eks-4f4795d", "1.30.4+k3s1", "v1.37.0-alpha.1.120+0123abcd", "v1.37.0-beta.01", "v1.36", "latest", "v1.4294967296.0", "1.0.0+\n", "1.1000000000.10000000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseKubelet(s)
		m := kubeletRE.FindStringSubmatch(s)
		if m != nil && !ok {
			for _, big := range bigNumber.FindAllString(m[1], -1) {
				if _, err := strconv.ParseUint(big, 10, 32); err != nil {
					return
				}
			}
		}
		if (m != nil) != ok || ok && "v"+m[1] != v.Semver() {
			t.Fatalf("ParseKubelet(%q) = %q, %t; the pattern says %q", s, v.Semver(), ok, m)
		}
		if ok {
			if again, ok := ParseKubelet(v.Semver()); !ok || again.Semver() != v.Semver() {
				t.Fatalf("ParseKubelet(%q) = %s, which reads back as %s, %t", s, v.Semver(), again.Semver(), ok)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1.26", "v1.26.3", "1.36.0-beta.0", "01.2", "1..2", "18446744073709551616.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Parse(s)
		if !ok {
			return
		}
		w, ok := Parse(v.Semver())
		if !ok || w.String() != v.String() || w.Less(v) || v.Less(w) {
			t.Fatalf("%q parsed to %s, which reparses to %s, %t", s, v, w, ok)
		}
	})
}
