// Package release fetches released Kubernetes source (k8s.io/kubernetes and
// k8s.io/cri-api) with the user's own go command, so that plegvet can answer
// for a version without a checkout.
package release

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/plegvet/plegvet/internal/tree"
)

var versionRE = regexp.MustCompile(`^v1\.(\d+)\.(\d+)(-(alpha|beta|rc)\.\d+)?$`)

// ParseVersion checks a Kubernetes release version such as v1.36.1 (a
// leading "v" may be omitted) and returns it in canonical form.
func ParseVersion(s string) (string, error) {
	v := strings.TrimSpace(s)
	if v != "" && v[0] != 'v' {
		v = "v" + v
	}
	if !versionRE.MatchString(v) {
		return "", fmt.Errorf("-k8s %q: not a Kubernetes release version; want v1.MINOR.PATCH, such as v1.36.1", s)
	}
	return v, nil
}

// StagingVersion maps a Kubernetes version to the version of its staging
// modules: v1.36.1 -> v0.36.1.
func StagingVersion(v string) string { return "v0." + strings.TrimPrefix(v, "v1.") }

// Module is one module the go command downloaded.
type Module struct {
	Path, Version, Dir string
}

// Fetch downloads k8s.io/kubernetes@version and, when withCRI is set,
// k8s.io/cri-api at the matching staging version, and describes them as one
// tree. It runs "go mod download -json" outside any module, so GOPROXY,
// GOFLAGS, GOMODCACHE and GONOSUMDB apply as the user set them.
func Fetch(ctx context.Context, version string, withCRI bool) (*tree.Tree, error) {
	v, err := ParseVersion(version)
	if err != nil {
		return nil, err
	}
	want := []string{tree.KubernetesModule + "@" + v}
	if withCRI {
		want = append(want, tree.CRIAPIModule+"@"+StagingVersion(v))
	}
	mods, err := Download(ctx, want...)
	if err != nil {
		return nil, err
	}
	t := &tree.Tree{Dir: mods[0].Dir, Module: tree.KubernetesModule, Version: v, Modules: map[string]string{}}
	if withCRI {
		t.Modules[tree.CRIAPIModule] = mods[1].Dir
	}
	return t, nil
}

// Download runs "go mod download -json" for each module@version and returns
// them in order. An error names the module and repeats what the go command
// said, in one line. The go command runs under FetchTimeout and stops with
// ctx; the error then wraps ctx.Err() (context.DeadlineExceeded or
// context.Canceled).
func Download(ctx context.Context, modules ...string) ([]Module, error) {
	what := "fetching " + strings.Join(modules, ", ")
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: interrupted before the go command ran: %w", what, err)
	}
	// A directory outside any module, so that no go.mod of the user's
	// applies; removed on every return, stopped runs included.
	neutral, err := os.MkdirTemp("", "plegvet-download-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(neutral)
	args := append([]string{"mod", "download", "-json"}, modules...)
	outJSON, errOut, runErr := runGo(ctx, what, neutral, args...)
	if isStopped(runErr) {
		return nil, runErr
	}
	var execErr *exec.Error
	if errors.As(runErr, &execErr) {
		return nil, fmt.Errorf("cannot run the go command to fetch %s: %v", strings.Join(modules, ", "), runErr)
	}
	stdout, stderr := bytes.NewReader(outJSON), string(errOut)
	byName := map[string]Module{}
	var errs []string
	dec := json.NewDecoder(stdout)
	for {
		var m struct {
			Path, Version, Dir, Error string
		}
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("fetching %s: cannot read the go command's output: %v", strings.Join(modules, ", "), err)
		}
		if m.Error != "" {
			errs = append(errs, oneLine(m.Error))
			continue
		}
		byName[m.Path+"@"+m.Version] = Module{Path: m.Path, Version: m.Version, Dir: m.Dir}
	}
	out := make([]Module, 0, len(modules))
	for _, want := range modules {
		m, ok := byName[want]
		if !ok || m.Dir == "" {
			why := strings.Join(errs, "; ")
			if why == "" {
				why = oneLine(stderr)
			}
			if why == "" && runErr != nil {
				why = runErr.Error()
			}
			return nil, fmt.Errorf("cannot fetch %s with the go command: %s", want, why)
		}
		out = append(out, m)
	}
	return out, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// isStopped reports whether err says the context stopped the go command.
func isStopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Range expands "v1.26.0..v1.37.2" to the newest patch of each minor from
// the first to the last that the proxy serves (the last minor capped at
// the given patch), and "v1.25.0,v1.30.0" to its list. A single version is
// a list of one.
func Range(ctx context.Context, spec string) ([]string, error) {
	if from, to, ok := strings.Cut(spec, ".."); ok {
		lo, err := ParseVersion(from)
		if err != nil {
			return nil, err
		}
		hi, err := ParseVersion(to)
		if err != nil {
			return nil, err
		}
		loMinor, hiMinor := minorOf(lo), minorOf(hi)
		if loMinor > hiMinor {
			return nil, fmt.Errorf("-k8s %s: the range goes down from minor %d to %d", spec, loMinor, hiMinor)
		}
		// Minors are asked about at once: each answer is network-bound.
		found := make([]string, hiMinor-loMinor+1)
		errs := make([]error, len(found))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4) // each minor runs 4 go commands
		for m := loMinor; m <= hiMinor; m++ {
			maxPatch := maxPatchProbe
			if m == hiMinor {
				maxPatch = patchOf(hi)
			}
			wg.Add(1)
			go func(i, m, maxPatch int) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				found[i], errs[i] = newestPatch(ctx, m, maxPatch)
			}(m-loMinor, m, maxPatch)
		}
		wg.Wait()
		var out []string
		for i, v := range found {
			if errs[i] != nil {
				return nil, errs[i]
			}
			if v != "" {
				out = append(out, v)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("-k8s %s: the module proxy serves no k8s.io/kubernetes release in that range", spec)
		}
		return out, nil
	}
	var out []string
	for _, part := range strings.Split(spec, ",") {
		v, err := ParseVersion(part)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func minorOf(v string) int {
	m := versionRE.FindStringSubmatch(v)
	n, _ := strconv.Atoi(m[1])
	return n
}

func patchOf(v string) int {
	m := versionRE.FindStringSubmatch(v)
	n, _ := strconv.Atoi(m[2])
	return n
}

// maxPatchProbe bounds the patches asked for: no Kubernetes minor has had
// more than about 20.
const maxPatchProbe = 31

// newestPatch finds the newest patch of v1.<minor> the proxy serves, not
// after maxPatch. The proxy's version list may be partial and a proxy may
// serve some patches and not others, so every patch is asked for by name,
// a few per go command, the commands at once.
func newestPatch(ctx context.Context, minor, maxPatch int) (string, error) {
	if maxPatch > maxPatchProbe {
		maxPatch = maxPatchProbe
	}
	const chunk = 8
	var mu sync.Mutex
	best := -1
	var firstErr error
	var wg sync.WaitGroup
	for start := 0; start <= maxPatch; start += chunk {
		wg.Add(1)
		go func(start int) {
			defer wg.Done()
			var patches []int
			for p := start; p < start+chunk && p <= maxPatch; p++ {
				patches = append(patches, p)
			}
			served, err := servedPatches(ctx, minor, patches)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && (firstErr == nil || isStopped(err) && !isStopped(firstErr)) {
				firstErr = err
			}
			for _, p := range served {
				best = max(best, p)
			}
			if len(served) > 0 {
				return
			}
		}(start)
	}
	wg.Wait()
	if best < 0 || isStopped(firstErr) {
		// Every chunk failed: say why. A stopped chunk may have held the
		// newest patch, so the others' answer is not the answer.
		return "", firstErr
	}
	return fmt.Sprintf("v1.%d.%d", minor, best), nil
}

// servedPatches asks the go command, in one run, which of the patches of
// k8s.io/kubernetes@v1.minor the proxy serves.
func servedPatches(ctx context.Context, minor int, patches []int) ([]int, error) {
	args := []string{"list", "-m", "-e", "-f", "{{.Version}} {{if .Error}}missing {{.Error.Err}}{{else}}ok{{end}}"}
	for _, p := range patches {
		args = append(args, fmt.Sprintf("%s@v1.%d.%d", tree.KubernetesModule, minor, p))
	}
	what := fmt.Sprintf("asking the go command for v1.%d patches", minor)
	out, errOut, err := runGo(ctx, what, os.TempDir(), args...)
	if isStopped(err) {
		return nil, err
	}
	if err != nil && len(out) == 0 {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("%s: %s", what, oneLine(string(errOut)))
		}
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	var served []int
	why := ""
	for _, line := range strings.Split(string(out), "\n") {
		v, state, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && state == "ok" && versionRE.MatchString(v) && minorOf(v) == minor {
			served = append(served, patchOf(v))
		} else if reason, missing := strings.CutPrefix(state, "missing "); missing && why == "" {
			why = reason
		}
	}
	if len(served) == 0 && why != "" {
		return nil, fmt.Errorf("the go command serves no v1.%d patch: %s", minor, oneLine(why))
	}
	return served, nil
}
