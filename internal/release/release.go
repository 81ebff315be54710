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
	"strings"

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
// said, in one line.
func Download(ctx context.Context, modules ...string) ([]Module, error) {
	neutral, err := os.MkdirTemp("", "plegvet-download-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(neutral)
	args := append([]string{"mod", "download", "-json"}, modules...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = neutral
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var execErr *exec.Error
	if errors.As(runErr, &execErr) {
		return nil, fmt.Errorf("cannot run the go command to fetch %s: %v", strings.Join(modules, ", "), runErr)
	}
	byName := map[string]Module{}
	var errs []string
	dec := json.NewDecoder(&stdout)
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
				why = oneLine(stderr.String())
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
