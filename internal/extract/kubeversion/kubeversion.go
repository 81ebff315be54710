// Package kubeversion reads the versions Kubernetes is known by: a
// release (v1.36.1, v1.37.0-alpha.1), a minor as feature gate specs write
// it (1.36), and a kubelet's build version (v1.36.1-eks-4f4795d). The
// syntax is semantic versioning as golang.org/x/mod/semver reads it, the
// go command's own, so that what parses here is what the module proxy is
// asked for.
package kubeversion

import (
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"
)

// Version is a Kubernetes version: a minor, maybe a patch, maybe an
// upstream pre-release.
type Version struct {
	Major, Minor uint
	// Patch is nil when the version names a minor only ("1.36").
	Patch *uint
	// Pre is the pre-release without its '-' ("alpha.1"); "" for a release.
	Pre string
}

// Parse reads MAJOR.MINOR[.PATCH[-PRE]], with or without a leading "v"
// and surrounding space: "1.36", "v1.36.1", "1.37.0-beta.0". Numbers have
// no leading zeros and fit 32 bits; build metadata ("+x") is refused, as
// no Kubernetes release has any (ParseKubelet reads kubelet builds).
func Parse(s string) (Version, bool) {
	sv := "v" + strings.TrimPrefix(strings.TrimSpace(s), "v")
	if !semver.IsValid(sv) || semver.Build(sv) != "" {
		return Version{}, false
	}
	pre := semver.Prerelease(sv)
	parts := strings.Split(strings.TrimSuffix(sv[1:], pre), ".")
	if len(parts) < 2 { // semver's "v1" shorthand names no minor
		return Version{}, false
	}
	var n [3]uint
	for i, p := range parts {
		u, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return Version{}, false
		}
		n[i] = uint(u)
	}
	v := Version{Major: n[0], Minor: n[1], Pre: strings.TrimPrefix(pre, "-")}
	if len(parts) == 3 {
		v.Patch = &n[2]
	}
	return v, true
}

// ParseKubelet reads a kubelet's git version (kubernetes_build_info's
// git_version) and returns the release whose source it was built from:
// v1.36.1 for v1.36.1-eks-4f4795d or v1.36.1+k3s1, v1.37.0-alpha.1 for
// v1.37.0-alpha.1.120+0123abcd. It wants major 1 and a patch; after the
// patch, an upstream pre-release (alpha, beta or rc and a number) is kept
// and anything else starting with '-', '+' or '.' is a vendor's or a
// build's suffix, dropped.
func ParseKubelet(s string) (Version, bool) {
	major, rest, _ := strings.Cut(strings.TrimPrefix(s, "v"), ".")
	minor, rest, _ := strings.Cut(rest, ".")
	patch, rest := leadingDigits(rest)
	v, ok := Parse(major + "." + minor + "." + patch) // minor's digits and all
	if !ok || major != "1" || patch == "" {
		return Version{}, false
	}
	if pre, after, ok := upstreamPre(rest); ok {
		v.Pre, rest = pre, after
	}
	// A suffix is one line: what follows a version in a file is not part of it.
	if rest != "" && (!strings.ContainsAny(rest[:1], "-+.") || strings.Contains(rest, "\n")) {
		return Version{}, false
	}
	return v, true
}

// upstreamPre reads "-alpha.1" (or beta, rc) at the start of s, ended by
// the end of s or by '-', '+' or '.', and returns "alpha.1" and what
// follows it.
func upstreamPre(s string) (pre, rest string, ok bool) {
	body, found := strings.CutPrefix(s, "-")
	if !found {
		return "", s, false
	}
	kind, num, found := strings.Cut(body, ".")
	if !found || kind != "alpha" && kind != "beta" && kind != "rc" {
		return "", s, false
	}
	n, after := leadingDigits(num)
	if n == "" || len(n) > 1 && n[0] == '0' || after != "" && !strings.ContainsAny(after[:1], "-+.") {
		return "", s, false
	}
	return kind + "." + n, after, true
}

// leadingDigits splits s after its leading ASCII digits.
func leadingDigits(s string) (digits, rest string) {
	rest = strings.TrimLeft(s, "0123456789")
	return s[:len(s)-len(rest)], rest
}

// IsRelease reports whether v is how k8s.io/kubernetes tags a release:
// major 1, a patch, and no pre-release but alpha.N, beta.N or rc.N.
func (v Version) IsRelease() bool {
	_, rest, ok := upstreamPre("-" + v.Pre)
	return v.Major == 1 && v.Patch != nil && (v.Pre == "" || ok && rest == "")
}

// IsMinor reports whether v names a minor only: no patch, no pre-release.
func (v Version) IsMinor() bool { return v.Patch == nil && v.Pre == "" }

// String is "1.36", "1.36.1" or "1.37.0-alpha.1", as feature gate specs
// write versions.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d", v.Major, v.Minor)
	if v.Patch != nil {
		s += fmt.Sprintf(".%d", *v.Patch)
	}
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	return s
}

// Semver is the version with a leading "v" ("v1.36.1"), as the go command
// and the module proxy name it; a minor is semver's shorthand "v1.36".
func (v Version) Semver() string { return "v" + v.String() }

// WithPatch is v's minor at the given patch, without pre-release.
func (v Version) WithPatch(patch uint) Version {
	return Version{Major: v.Major, Minor: v.Minor, Patch: &patch}
}

// MajorMinor drops the patch and the pre-release.
func (v Version) MajorMinor() Version { return Version{Major: v.Major, Minor: v.Minor} }

// Less orders versions as semantic versioning does: a missing patch counts
// as 0, and a pre-release comes before its release.
func (v Version) Less(w Version) bool { return semver.Compare(v.Semver(), w.Semver()) < 0 }
