package assemble

import (
	"errors"
	"fmt"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/load/release"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/srcpos"
	"golang.org/x/mod/module"
	"net/url"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Positions says how an answer names its files beyond their checkout
// names, which every form keeps (each position's "file").
type Positions string

const (
	// PositionsRelative names files as in a checkout of the tree
	// (staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto), and a
	// release's positions also by their web address (Pos.URL): the
	// default.
	PositionsRelative Positions = "relative"
	// PositionsModule also names files where they are on disk (Pos.Path):
	// under the checkout for a checkout; in the module cache for a
	// release ($GOMODCACHE/k8s.io/cri-api@v0.36.1/pkg/...), each staging
	// file in its own module. Text prints the path.
	PositionsModule Positions = "module"
	// PositionsURL is PositionsRelative for a release, whose text prints
	// each position by its web address (URL#LLINE) instead of its name;
	// a checkout has no known address.
	PositionsURL Positions = "url"
)

// KubernetesRepoURL is where a release's positions point: the kubernetes
// repository, whose tags are the releases.
const KubernetesRepoURL = answer.KubernetesRepoURL

// ParsePositions reads a -positions value: relative, module, url, or ""
// for relative.
func ParsePositions(s string) (Positions, error) {
	switch p := Positions(s); p {
	case "", PositionsRelative, PositionsModule, PositionsURL:
		return p, nil
	}
	return "", fmt.Errorf("%q: want relative, module or url", s)
}

// isRelease says that src is a release fetched or indexed, not a checkout.
func isRelease(src answer.Source) bool { return src.Release() != "" }

// RelocatePositions sets, in place, where each position of an answer can
// be opened (answer.Located): its URL for a release, and its Path when p
// is PositionsModule. File keeps the checkout's name in every form.
// answer is a *Report, *GatesReport, *PeriodsReport, *RPCReport,
// *NodeReport, *RuntimeReport, *Alerts, or a *GateAtRelease of a gate
// history.
func RelocatePositions(answer answer.Located, src answer.Source, p Positions) error {
	if p == PositionsURL && !isRelease(src) {
		return errors.New("positions url: a checkout has no known web address; want a release (-k8s), or relative or module")
	}
	// A checkout's file: address (FileLink) is for a terminal's click, not
	// for the JSON: the consumer's checkout is elsewhere.
	var link func(string, int) string
	if isRelease(src) {
		link = FileLink(src)
	}
	var onDisk func(string) string
	if p == PositionsModule {
		var err error
		if onDisk, err = diskFile(src); err != nil {
			return err
		}
	}
	answer.Files(func(name *string, at *srcpos.Pos) {
		if at == nil || *name == "" {
			return
		}
		if link != nil {
			at.URL = link(*name, at.Line)
		}
		if onDisk != nil {
			at.Path = onDisk(*name)
		}
	})
	return nil
}

// FileLink is the address of a file of src at a line (no line for 0): at
// the release's tag in the kubernetes repository, staging files at their
// path there; for a checkout, the file on disk as a file: URL, without
// the line (file: URLs have no standard line anchor).
func FileLink(src answer.Source) func(file string, line int) string {
	if isRelease(src) {
		base := src.TreeURL() + "/"
		return func(file string, line int) string {
			u := base + (&url.URL{Path: file}).EscapedPath()
			if line > 0 {
				u += "#L" + strconv.Itoa(line)
			}
			return u
		}
	}
	root, err := filepath.Abs(src.Dir)
	if err != nil || src.Dir == "" {
		return func(string, int) string { return "" }
	}
	return func(file string, _ int) string {
		p := filepath.ToSlash(filepath.Join(root, filepath.FromSlash(file)))
		if !strings.HasPrefix(p, "/") {
			p = "/" + p // C:/src: file:///C:/src
		}
		return (&url.URL{Scheme: "file", Path: p}).String()
	}
}

// diskFile maps a checkout-relative file name of src to the file on disk.
func diskFile(src answer.Source) (func(string) string, error) {
	if isRelease(src) {
		cache, err := goModCache()
		if err != nil {
			return nil, err
		}
		return moduleFile(cache, src.KubernetesVersion), nil
	}
	root, err := filepath.Abs(src.Dir)
	if err != nil {
		return nil, err
	}
	return func(f string) string { return filepath.Join(root, filepath.FromSlash(f)) }, nil
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
