package plegvet_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featurelist"
)

// markdownList is where v1.36 on keep feature_list.md (the update
// script names it; TestFeatureListByteIdentical requires they agree).
const markdownList = "test/compatibility_lifecycle/reference/feature_list.md"

// The releases that ship a versioned_feature_list.yaml, newest patches.
var featureListReleases = []string{"v1.32.13", "v1.33.13", "v1.34.4", "v1.35.4", "v1.36.5", "v1.37.2"}

// upstreamSlips are where a release's own list is not what its generator
// writes: v1.32's PodLogsQuerySplitStreams was indented by hand (its
// verifier compared parsed lists, not bytes). The fix-up restores the
// generator's indentation, and only there: any other difference fails.
var upstreamSlips = map[string]func(string) string{
	"v1.32.13": func(s string) string {
		const hand = "- name: PodLogsQuerySplitStreams\n  versionedSpecs:\n    - default: false\n      lockToDefault: false\n      preRelease: Alpha\n      version: \"1.32\"\n"
		const gen = "- name: PodLogsQuerySplitStreams\n  versionedSpecs:\n  - default: false\n    lockToDefault: false\n    preRelease: Alpha\n    version: \"1.32\"\n"
		if !strings.Contains(s, hand) {
			return s // the slip is gone: compare as is
		}
		return strings.Replace(s, hand, gen, 1)
	},
}

func referenceList(t *testing.T, dir string) string {
	t.Helper()
	for _, rel := range plegvet.ReferenceLists() {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err == nil {
			return string(data)
		}
	}
	t.Fatalf("%s ships no feature list", dir)
	return ""
}

// checkoutLike builds, in a temporary directory, a tree laid out as a
// checkout: the release's go.mod and pkg/, and each fetched staging
// module under staging/src/MODULE.
func checkoutLike(t *testing.T, root string, modules map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, filepath.Join(root, "go.mod"), filepath.Join(dir, "go.mod"))
	copyTree(t, filepath.Join(root, "pkg"), filepath.Join(dir, "pkg"))
	for _, rel := range append(plegvet.ReferenceLists(), featurelist.GeneratorFile, featurelist.MarkdownGeneratorFile, featurelist.UpdateScript, markdownList) {
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err == nil {
			copyTree(t, filepath.Join(root, filepath.FromSlash(rel)), filepath.Join(dir, filepath.FromSlash(rel)))
		}
	}
	for m, d := range modules {
		copyTree(t, d, filepath.Join(dir, "staging", "src", filepath.FromSlash(m)))
	}
	return dir
}

// copyTree copies the Go sources and go.mod files of src (a file or a
// directory) to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		if !strings.HasSuffix(p, ".go") && d.Name() != "go.mod" && p != src {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFeatureListByteIdentical: on every release that ships a list, the
// list plegvet writes is the release's own list, header included, byte
// for byte (the header and the removal rule read from the release's own
// feature-list tool, v1.33 on), read from a release (-k8s, with its
// staging modules fetched) and from a checkout-like tree (-C).
func TestFeatureListByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads Kubernetes releases and their staging modules")
	}
	ctx := context.Background()
	for _, v := range featureListReleases {
		t.Run(v, func(t *testing.T) {
			fetched, missing, err := parallelFetcher.FetchWithStaging(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range missing {
				t.Logf("not served by the proxy: %s (%s)", m.Module, m.Why)
			}
			want := referenceList(t, fetched.Dir)
			if fix := upstreamSlips[v]; fix != nil {
				want = fix(want)
			}
			release, err := plegvet.Gates(ctx, plegvet.Options{Kubernetes: v})
			if err != nil {
				t.Fatal(err)
			}
			if len(release.Unfetched) != len(missing) {
				t.Errorf("Unfetched = %q, want the %d modules not served", release.Unfetched, len(missing))
			}
			checkout, err := plegvet.Gates(ctx, plegvet.Options{Dir: checkoutLike(t, fetched.Dir, fetched.Modules)})
			if err != nil {
				t.Fatal(err)
			}
			for mode, rep := range map[string]*answer.GatesReport{"-k8s": release, "-C": checkout} {
				var buf bytes.Buffer
				if err := rep.WriteFeatureList(&buf, false); err != nil {
					t.Fatal(err)
				}
				got := buf.String()
				if got != want {
					t.Errorf("%s: the list differs from the release's:\n%s", mode, firstDifference(got, want))
				}
				// feature_list.md where the release has its generator (v1.36 on).
				mdWant, err := os.ReadFile(filepath.Join(fetched.Dir, filepath.FromSlash(markdownList)))
				if (err == nil) != (rep.Markdown != nil) {
					t.Errorf("%s: feature_list.md read: %v; generator read: %+v", mode, err, rep.Markdown)
				}
				if rep.Markdown != nil {
					if rep.Markdown.File != markdownList {
						t.Errorf("%s: the update script writes %s, want %s", mode, rep.Markdown.File, markdownList)
					}
					var md bytes.Buffer
					if err := rep.WriteMarkdownList(&md); err != nil {
						t.Fatal(err)
					}
					if md.String() != string(mdWant) {
						t.Errorf("%s: feature_list.md differs from the release's:\n%s", mode, firstDifference(md.String(), string(mdWant)))
					}
					if ds, err := plegvet.CheckMarkdownList(rep, markdownList, mdWant, ""); err != nil || len(ds) != 0 {
						t.Errorf("%s: CheckMarkdownList = %v, %v", mode, ds, err)
					}
				}
				if len(rep.Source.Load.Problems)+len(rep.Source.Load.Unfollowed) > 0 {
					t.Errorf("%s: not read in full: %q %q", mode, rep.Source.Load.Problems, rep.Source.Load.Unfollowed)
				}
				// Keys of staging modules' constants resolve: none stands in by name.
				for _, g := range rep.Gates {
					if strings.Contains(g.Unresolved, "which was not loaded") {
						t.Errorf("%s: %s: %s", mode, g.Name, g.Unresolved)
					}
				}
			}
			// The release's own tool, read in both modes: its list's path,
			// the version component-base calls current, the v1.33-v1.36
			// exemption that v1.37 dropped.
			minor := strings.Join(strings.Split(strings.TrimPrefix(v, "v"), ".")[:2], ".")
			for mode, rep := range map[string]*answer.GatesReport{"-k8s": release, "-C": checkout} {
				lc := rep.Lifecycle
				if minor < "1.33" {
					if lc != nil {
						t.Errorf("%s: Lifecycle = %+v before the tool existed", mode, lc)
					}
					continue
				}
				wantExempt := "1.31"
				if minor >= "1.37" {
					wantExempt = ""
				}
				if lc == nil || lc.ListFile != plegvet.ReferenceLists()[0] || lc.Current != minor || lc.RemovalMinors != 3 || lc.ExemptThrough != wantExempt {
					t.Errorf("%s: Lifecycle = %+v, want the list at %s, current %s, 3 minors, exempt through %q", mode, lc, plegvet.ReferenceLists()[0], minor, wantExempt)
				}
			}
			// Module and file as in a checkout, in both modes.
			for _, rep := range []*answer.GatesReport{release, checkout} {
				if g := rep.Gate("ContextualLogging"); g == nil || g.Module != "k8s.io/component-base" ||
					g.File != "staging/src/k8s.io/component-base/logs/api/v1/kube_features.go" || g.Listed != (g.Format == "versioned") {
					t.Errorf("ContextualLogging = %+v, want component-base's logs/api/v1 gate", g)
				}
			}
			// The release's own list agrees with the code.
			list, err := featurelist.Parse("list", []byte(referenceList(t, fetched.Dir)))
			if err != nil {
				t.Fatal(err)
			}
			if ds := plegvet.CheckFeatureList(release, "list", list, ""); len(ds) != 0 {
				t.Errorf("-check finds %d differences with the release's own list, first %s", len(ds), ds[0].Message)
			}
		})
	}
}

// firstDifference shows a few lines around the first line that differs.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(lengths differ)"
}

func itoa(i int) string {
	var b []byte
	for ; i > 0 || len(b) == 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
