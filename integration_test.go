package plegvet_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/release"
)

// refSpec is one spec of Kubernetes' own versioned_feature_list.yaml.
type refSpec struct {
	Default, LockToDefault    bool
	PreRelease, Version, MinC string
}

func (s refSpec) String() string {
	return fmt.Sprintf("{%s %s default=%t locked=%t min=%s}", s.Version, s.PreRelease, s.Default, s.LockToDefault, s.MinC)
}

// readFeatureList reads the reference list's regular YAML: "- name: X",
// "versionedSpecs:", then "- default: ..." blocks of scalar keys.
func readFeatureList(t *testing.T, path string) map[string][]refSpec {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]refSpec{}
	var name string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || line == "versionedSpecs:" {
			continue
		}
		if n, ok := strings.CutPrefix(line, "- name: "); ok {
			name = n
			out[name] = []refSpec{}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "- "); ok {
			out[name] = append(out[name], refSpec{})
			line = rest
		}
		key, val, ok := strings.Cut(line, ": ")
		if !ok || len(out[name]) == 0 {
			t.Fatalf("%s: unexpected line %q", path, line)
		}
		s := &out[name][len(out[name])-1]
		if uq, err := strconv.Unquote(val); err == nil {
			val = uq
		}
		switch key {
		case "default":
			s.Default = val == "true"
		case "lockToDefault":
			s.LockToDefault = val == "true"
		case "preRelease":
			s.PreRelease = val
		case "version":
			s.Version = val
		case "minCompatibilityVersion":
			s.MinC = val
		default:
			t.Fatalf("%s: unknown key %q", path, key)
		}
	}
	return out
}

func specsOf(g plegvet.Gate) []refSpec {
	var out []refSpec
	for _, s := range g.Specs {
		out = append(out, refSpec{Default: s.Default, LockToDefault: s.LockToDefault, PreRelease: s.PreRelease, Version: s.Version, MinC: s.MinCompatibilityVersion})
	}
	return out
}

func sameSpecs(a, b []refSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGatesMatchReferenceLists compares, on real releases fetched with the
// go command, every gate declared in pkg/features with the release's own
// generated list of gates.
func TestGatesMatchReferenceLists(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	for _, tc := range []struct{ version, list string }{
		{"v1.32.13", "test/featuregates_linter/test_data/versioned_feature_list.yaml"}, // empty FeatureSpec map beside the versioned one
		{"v1.33.13", "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"},
		{"v1.36.1", "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"}, // dependency maps
		{"v1.37.2", "test/compatibility_lifecycle/reference/versioned_feature_list.yaml"}, // lists by value, MinCompatibilityVersion
	} {
		t.Run(tc.version, func(t *testing.T) {
			rep, err := plegvet.Gates(context.Background(), plegvet.Options{Kubernetes: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			mods, err := release.Download(context.Background(), "k8s.io/kubernetes@"+tc.version)
			if err != nil {
				t.Fatal(err)
			}
			ref := readFeatureList(t, filepath.Join(mods[0].Dir, filepath.FromSlash(tc.list)))
			compared := 0
			for _, g := range rep.Gates {
				if g.Decl == nil || !strings.HasPrefix(g.Decl.File, "pkg/features/") {
					continue // declared in another package; its own list entry is its owner's
				}
				want, ok := ref[g.Name]
				if !ok {
					want, ok = ref[g.Const] // lists up to v1.36 name gates by identifier
				}
				if !ok {
					t.Errorf("%s (%s:%d) is not in %s", g.Name, g.Decl.File, g.Decl.Line, tc.list)
					continue
				}
				compared++
				if got := specsOf(g); !sameSpecs(got, want) {
					t.Errorf("%s: specs %v, the release's list says %v", g.Name, got, want)
				}
			}
			if compared < 120 {
				t.Errorf("compared only %d gates declared in pkg/features", compared)
			}
			if len(rep.Diagnostics) != 0 {
				t.Errorf("an unmodified release has findings: %+v", rep.Diagnostics)
			}
			t.Logf("%s: %d gates compared with %s", tc.version, compared, tc.list)
		})
	}
}

// TestUnversionedGatesAgreeWithLaterHistory checks the older format, for
// which no release ships a list: v1.30's FeatureSpec map against what
// v1.32's versioned list says was in force at 1.30. Upstream rewrote some
// histories when it moved to versioned specs, so a few may differ; most
// must not.
func TestUnversionedGatesAgreeWithLaterHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases")
	}
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Kubernetes: "v1.30.14"})
	if err != nil {
		t.Fatal(err)
	}
	later, err := plegvet.Gates(context.Background(), plegvet.Options{Kubernetes: "v1.32.13"})
	if err != nil {
		t.Fatal(err)
	}
	agree, compared := 0, 0
	for _, g := range rep.Gates {
		if g.Format != "unversioned" || len(g.Specs) != 1 || g.Decl == nil {
			continue
		}
		lg := later.Gate(g.Name)
		if lg == nil {
			continue
		}
		s, ok := lg.At("1.30")
		if !ok {
			continue
		}
		compared++
		old := g.Specs[0]
		if old.Default == s.Default && old.PreRelease == s.PreRelease && old.LockToDefault == s.LockToDefault {
			agree++
		} else {
			t.Logf("%s: v1.30 says %s/%t, v1.32's history at 1.30 says %s/%t", g.Name, old.PreRelease, old.Default, s.PreRelease, s.Default)
		}
	}
	t.Logf("%d of %d gates agree", agree, compared)
	if compared < 100 || agree*100 < compared*95 {
		t.Errorf("%d of %d gates of v1.30 agree with v1.32's history at 1.30; want at least 95%% of 100 or more", agree, compared)
	}
}
