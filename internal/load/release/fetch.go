// Fetching a release: k8s.io/kubernetes and its staging modules, in one
// run of "go mod download -json" each, described as one tree.

package release

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/plegvet/plegvet/internal/load/tree"
)

// Module is one module the go command downloaded.
type Module struct {
	Path, Version, Dir string
	// Sum is the module's go.sum hash (h1:...): its content, fixed.
	Sum string
}

// Fetch downloads k8s.io/kubernetes@version and, when withCRI is set,
// k8s.io/cri-api at the matching staging version, and describes them as one
// tree. A minor (v1.36) means its newest patch, as Resolve finds it; the
// tree's Version says which release was fetched. It runs "go mod download -json" outside any module, so GOPROXY,
// GOFLAGS, GOMODCACHE and GONOSUMDB apply as the user set them.
func (f Fetcher) Fetch(ctx context.Context, version string, withCRI bool) (*tree.Tree, error) {
	v, err := f.Resolve(ctx, version)
	if err != nil {
		return nil, err
	}
	want := []string{tree.KubernetesModule + "@" + v}
	if withCRI {
		want = append(want, tree.CRIAPIModule+"@"+StagingVersion(v))
	}
	mods, err := f.Download(ctx, want...)
	if errors.Is(err, ErrProxyRefused) && !errors.Is(err, ErrGoTooOld) {
		return nil, f.unserved(ctx, v, err)
	}
	if err != nil {
		return nil, err
	}
	t := &tree.Tree{Dir: mods[0].Dir, Module: tree.KubernetesModule, Version: v, Modules: map[string]string{}, Sums: map[string]string{}}
	for _, m := range mods {
		t.Sums[m.Path] = m.Sum
	}
	if withCRI {
		t.Modules[tree.CRIAPIModule] = mods[1].Dir
	}
	return t, nil
}

// unserved explains a release the proxy refused by the newest release it
// serves (k8s.io/kubernetes@latest): a version after it that the proxy
// does not list either is no release at all, which the proxy's "403
// Forbidden" does not say; one it lists (a pre-release after the newest
// release), or one before the newest that this proxy lacks, keeps the go
// command's words. When even the newest cannot be asked for (no network,
// GOPROXY=off) the go command's first answer is the whole answer.
func (f Fetcher) unserved(ctx context.Context, v string, refused error) error {
	tmp, err := tempDir()
	if err != nil {
		return refused
	}
	out, _, err := f.runGo(ctx, "asking the go command for the newest "+tree.KubernetesModule, tmp,
		"list", "-m", "-f", "{{.Version}}", tree.KubernetesModule+"@latest")
	newest := strings.TrimSpace(string(out))
	if err != nil || semver.Compare(newest, "v1.0.0") < 0 {
		return refused
	}
	if semver.Compare(v, newest) > 0 {
		if listed, _ := f.servedVersions(ctx, "asking the go command for "+tree.KubernetesModule+"@"+v, []string{v}); len(listed) > 0 {
			return refused
		}
		return noSuchRelease(fmt.Sprintf("%s@%s: %v: the newest the module proxy serves is %s",
			tree.KubernetesModule, v, ErrNoSuchRelease, newest))
	}
	return fmt.Errorf("%w (the newest release the module proxy serves is %s)", refused, newest)
}

// FetchWithStaging is Fetch, with every staging module the release's
// go.mod requires (StagingModules) at the matching staging version, the
// staging modules in ONE run of the go command after k8s.io/kubernetes
// (whose go.mod names them). A staging module the proxy does not serve
// is in missing, with the go command's word; the tree holds the others.
func (f Fetcher) FetchWithStaging(ctx context.Context, version string) (*tree.Tree, []Missing, error) {
	t, err := f.Fetch(ctx, version, false)
	if err != nil {
		return nil, nil, err
	}
	mods, err := StagingModules(filepath.Join(t.Dir, "go.mod"))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the staging modules of %s@%s: %w", tree.KubernetesModule, t.Version, err)
	}
	if len(mods) == 0 {
		return t, nil, nil
	}
	want := make([]string, len(mods))
	for i, m := range mods {
		want[i] = m + "@" + StagingVersion(t.Version)
	}
	found, missing, err := f.DownloadSome(ctx, want...)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range found {
		t.Modules[m.Path] = m.Dir
		t.Sums[m.Path] = m.Sum
	}
	return t, missing, nil
}

// StagingVersion maps a Kubernetes version to the version of its staging
// modules: v1.36.1 -> v0.36.1.
func StagingVersion(v string) string { return "v0." + strings.TrimPrefix(v, "v1.") }

// StagingModules reads the go.mod of k8s.io/kubernetes: the modules it
// requires and replaces with a directory of its own staging/src, in the
// order of its require lines. A release's staging modules are published
// as modules of their own at the matching v0 version (StagingVersion).
func StagingModules(gomod string) ([]string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return nil, err
	}
	f, err := modfile.Parse(gomod, data, func(_, v string) (string, error) { return v, nil })
	if err != nil {
		return nil, fmt.Errorf("%s: %v", gomod, oneLine(err.Error()))
	}
	staged := map[string]bool{}
	for _, r := range f.Replace {
		if r.New.Version == "" && strings.HasPrefix(path.Clean(r.New.Path), "staging/src/") {
			staged[r.Old.Path] = true
		}
	}
	var mods []string
	for _, r := range f.Require {
		if staged[r.Mod.Path] {
			delete(staged, r.Mod.Path) // listed once
			mods = append(mods, r.Mod.Path)
		}
	}
	return mods, nil
}

// Download runs "go mod download -json" for each module@version and returns
// them in order. An error names the module and repeats what the go command
// said, in one line. The go command runs under the Fetcher's Timeout and stops with
// ctx; the error then wraps ctx.Err() (context.DeadlineExceeded or
// context.Canceled).
func (f Fetcher) Download(ctx context.Context, modules ...string) ([]Module, error) {
	found, missing, err := f.DownloadSome(ctx, modules...)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		if err := toolchainRefusal(missing[0].Module, missing[0].Why); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("cannot fetch %s with the go command: %w", missing[0].Module, refusal(missing[0].Why))
	}
	return found, nil
}

// Missing is a module the go command did not download, with what it said.
type Missing struct {
	Module string // module@version
	Why    string // the go command's message, on one line
}

// DownloadSome is Download in one run of the go command that keeps what it
// fetched: the modules downloaded, in the order asked, and each one that
// was not, with why. The error is for a go command that could not run,
// was stopped, or whose output could not be read.
func (f Fetcher) DownloadSome(ctx context.Context, modules ...string) ([]Module, []Missing, error) {
	what := "fetching " + strings.Join(modules, ", ")
	if len(modules) > 3 {
		what = fmt.Sprintf("fetching %s and %d more modules", strings.Join(modules[:2], ", "), len(modules)-2)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: interrupted before the go command ran: %w", what, err)
	}
	// A directory outside any module, so that no go.mod of the user's
	// applies; removed on every return, stopped runs included.
	tmp, err := tempDir()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	neutral, err := os.MkdirTemp(tmp, "plegvet-download-")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	defer os.RemoveAll(neutral)
	args := append([]string{"mod", "download", "-json"}, modules...)
	if f.Progress != nil {
		done := f.Progress(what)
		defer done()
	}
	outJSON, errOut, runErr := f.runGoFor(ctx, len(modules), what, neutral, args...)
	if isStopped(runErr) {
		return nil, nil, runErr
	}
	var execErr *exec.Error
	if errors.As(runErr, &execErr) {
		return nil, nil, fmt.Errorf("cannot run the go command to fetch %s: %w", strings.Join(modules, ", "), runErr)
	}
	type result struct {
		Module
		Error string
	}
	got := map[string]result{} // by module@version
	var errs []string
	dec := json.NewDecoder(bytes.NewReader(outJSON))
	for {
		var m result
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("%s: cannot read the go command's output: %w", what, err)
		}
		got[m.Path+"@"+m.Version] = m
		if m.Error != "" {
			errs = append(errs, oneLine(m.Error))
		}
	}
	runErrText := ""
	if runErr != nil {
		runErrText = runErr.Error()
	}
	out := make([]Module, 0, len(modules))
	var missing []Missing
	for _, want := range modules {
		m := got[want]
		if m.Error == "" && m.Dir != "" {
			out = append(out, m.Module)
			continue
		}
		why := cmp.Or(oneLine(m.Error), strings.Join(errs, "; "), oneLine(string(errOut)), runErrText, "the go command did not say where it is")
		missing = append(missing, Missing{Module: want, Why: why})
	}
	return out, missing, nil
}
