package assemble

import (
	"errors"
	"fmt"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/release"
	"github.com/plegvet/plegvet/internal/tree"
	"golang.org/x/mod/module"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// Positions says how an answer names its files.
type Positions string

const (
	// PositionsRelative names files as in a checkout of the tree
	// (staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto): the
	// answers' own form, and the default for a checkout.
	PositionsRelative Positions = "relative"
	// PositionsModule names files where they are on disk: under the
	// checkout for a checkout; in the module cache for a release
	// ($GOMODCACHE/k8s.io/cri-api@v0.36.1/pkg/...), each staging file in
	// its own module.
	PositionsModule Positions = "module"
	// PositionsURL names files by their web address at the release's tag
	// in the kubernetes repository, staging files at their path there
	// (https://github.com/kubernetes/kubernetes/blob/v1.36.1/staging/...);
	// text prints a position as URL#LLINE. The default for a release;
	// a checkout has no known address.
	PositionsURL Positions = "url"
)

// KubernetesRepoURL is where PositionsURL points: the kubernetes
// repository, whose tags are the releases.
const KubernetesRepoURL = "https://github.com/kubernetes/kubernetes"

// ParsePositions reads a -positions value: relative, module, url, or ""
// for the default of the source read (DefaultPositions).
func ParsePositions(s string) (Positions, error) {
	switch p := Positions(s); p {
	case "", PositionsRelative, PositionsModule, PositionsURL:
		return p, nil
	}
	return "", fmt.Errorf("%q: want relative, module or url", s)
}

// DefaultPositions is the form a user can open for the source read: a
// release's files by URL, a checkout's relative to it.
func DefaultPositions(src answer.Source) Positions {
	if isRelease(src) {
		return PositionsURL
	}
	return PositionsRelative
}

// isRelease says that src is a release fetched or indexed, not a checkout.
func isRelease(src answer.Source) bool {
	return src.KubernetesVersion != "" && src.Dir == tree.KubernetesModule+"@"+src.KubernetesVersion
}

// RelocatePositions rewrites, in place, every file name an answer carries
// in its JSON (answer.Located: each position's file and each "file" key)
// into the form p names for the source src it was read from. answer is
// a *Report, *GatesReport, *PeriodsReport, *RPCReport, *NodeReport,
// *RuntimeReport, or a *GateAtRelease of a gate history. "" is
// DefaultPositions(src). Messages that cite a file:line in prose keep the
// tree's relative names.
func RelocatePositions(answer answer.Located, src answer.Source, p Positions) error {
	if p == "" {
		p = DefaultPositions(src)
	}
	name, err := relocator(src, p)
	if err != nil || name == nil {
		return err
	}
	answer.Files(func(f *string) {
		if *f != "" {
			*f = name(*f)
		}
	})
	return nil
}

// relocator maps a checkout-relative file name to its form p; nil for
// names that stay as they are.
func relocator(src answer.Source, p Positions) (func(string) string, error) {
	switch p {
	case PositionsRelative:
		return nil, nil
	case PositionsURL:
		if !isRelease(src) {
			return nil, errors.New("positions url: a checkout has no known web address; want a release (-k8s), or relative or module")
		}
		base := KubernetesRepoURL + "/blob/" + src.KubernetesVersion + "/"
		return func(f string) string {
			if strings.Contains(f, "://") {
				return f // renamed already (a position two answers share)
			}
			return base + f
		}, nil
	case PositionsModule:
		var file func(string) string
		if isRelease(src) {
			cache, err := goModCache()
			if err != nil {
				return nil, err
			}
			file = moduleFile(cache, src.KubernetesVersion)
		} else {
			root, err := filepath.Abs(src.Dir)
			if err != nil {
				return nil, err
			}
			file = func(f string) string { return filepath.Join(root, filepath.FromSlash(f)) }
		}
		return func(f string) string {
			if filepath.IsAbs(f) {
				return f // renamed already (a position two answers share)
			}
			return file(f)
		}, nil
	}
	return nil, fmt.Errorf("positions %q: want relative, module or url", p)
}

// moduleFile maps a checkout-relative name of release v to its file in
// the module cache: staging/src/MODULE/REST to MODULE's staging version,
// anything else to k8s.io/kubernetes@v.
func moduleFile(cache, v string) func(string) string {
	dir := func(mod, version string) string {
		esc, err := module.EscapePath(mod)
		if err != nil {
			esc = mod
		}
		return filepath.Join(cache, filepath.FromSlash(esc)+"@"+version)
	}
	return func(f string) string {
		if rest, ok := strings.CutPrefix(f, "staging/src/"); ok {
			// k8s.io/NAME/REST: staging modules are k8s.io/NAME.
			parts := strings.SplitN(rest, "/", 3)
			if len(parts) == 3 {
				return filepath.Join(dir(path.Join(parts[0], parts[1]), release.StagingVersion(v)), filepath.FromSlash(parts[2]))
			}
		}
		return filepath.Join(dir(tree.KubernetesModule, v), filepath.FromSlash(f))
	}
}

// goModCache is the module cache the go command fetches into.
func goModCache() (string, error) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", fmt.Errorf("positions module: asking the go command for GOMODCACHE: %w", err)
	}
	cache := strings.TrimSpace(string(out))
	if cache == "" {
		return "", errors.New("positions module: the go command names no GOMODCACHE")
	}
	return cache, nil
}
