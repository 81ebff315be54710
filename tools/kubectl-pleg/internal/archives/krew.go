package archives

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/semver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// krew's own checks (sigs.k8s.io/krew's internal/index/validation and
// cmd/validate-krew-manifest, which krew-index runs on every manifest)
// are written out here: that package is internal to krew's module, and
// the module requires k8s.io/client-go v11.0.0+incompatible, which would
// replace this module's client-go.

// KrewPlugin is krew's Plugin (krew.googlecontainertools.github.com/v1alpha2),
// every field: UnmarshalStrict refuses one krew would not read.
type KrewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string         `json:"version"`
		Homepage         string         `json:"homepage"`
		ShortDescription string         `json:"shortDescription"`
		Description      string         `json:"description"`
		Caveats          string         `json:"caveats"`
		Platforms        []KrewPlatform `json:"platforms"`
	} `json:"spec"`
}

// KrewPlatform is one platform of a krew manifest.
type KrewPlatform struct {
	Selector *metav1.LabelSelector `json:"selector"`
	URI      string                `json:"uri"`
	SHA256   string                `json:"sha256"`
	Bin      string                `json:"bin"`
	Files    []KrewFile            `json:"files"`
}

// KrewFile copies the archive's files matching From to To in the
// installation directory.
type KrewFile struct {
	From string `json:"from"`
	To   string `json:"to"`
}

var (
	krewSafeName = regexp.MustCompile(`^[\w-]+$`)
	krewSHA256   = regexp.MustCompile(`^[a-f0-9]{64}$`)
	// krewPlatforms are the systems krew runs on.
	krewPlatforms = []Platform{
		{"windows", "386"}, {"windows", "amd64"}, {"windows", "arm64"},
		{"linux", "386"}, {"linux", "amd64"}, {"linux", "arm"}, {"linux", "arm64"},
		{"darwin", "386"}, {"darwin", "amd64"}, {"darwin", "arm64"},
	}
	// krewLicenceFiles are the names krew-index accepts as a licence, in
	// lower case.
	krewLicenceFiles = []string{"license", "license.txt", "license.md", "licenses", "licenses.txt", "licenses.md", "copying", "copying.txt"}
)

// ParseKrewManifest reads a filled manifest and checks it as krew-index
// does before installing it: the manifest's file is NAME.yaml for the
// plugin NAME; apiVersion, kind, a safe name, a one-line short
// description, a semantic version, and for each platform a uri, a sha256,
// a bin, well-formed files and a selector on os and arch only that
// selects a system krew runs on, no system selected twice. Krew-index
// also asks for a description and caveats; both are required here.
func ParseKrewManifest(name string, manifest []byte) (*KrewPlugin, error) {
	var p KrewPlugin
	if err := yaml.UnmarshalStrict(manifest, &p); err != nil {
		return nil, fmt.Errorf("the manifest: %w", err)
	}
	s := p.Spec
	switch {
	case p.APIVersion != "krew.googlecontainertools.github.com/v1alpha2":
		return nil, fmt.Errorf("apiVersion %q, want krew.googlecontainertools.github.com/v1alpha2", p.APIVersion)
	case p.Kind != "Plugin":
		return nil, fmt.Errorf("kind %q, want Plugin", p.Kind)
	case !krewSafeName.MatchString(name):
		return nil, fmt.Errorf("the plugin name %q must match %s", name, krewSafeName)
	case p.Metadata.Name != name:
		return nil, fmt.Errorf("the plugin is named %q, want %q", p.Metadata.Name, name)
	case s.ShortDescription == "" || strings.ContainsAny(s.ShortDescription, "\r\n"):
		return nil, errors.New("want a short description of one line")
	case s.Description == "" || s.Caveats == "":
		return nil, errors.New("want a description and caveats")
	case !semver.IsValid(s.Version) || semver.Canonical(s.Version) != strings.SplitN(s.Version, "+", 2)[0]:
		return nil, fmt.Errorf("version %q: want a semantic version such as v0.1.0", s.Version)
	case len(s.Platforms) == 0:
		return nil, errors.New("want a platform")
	}
	for i, pl := range s.Platforms {
		if err := checkKrewPlatform(pl); err != nil {
			return nil, fmt.Errorf("platform %d: %w", i, err)
		}
	}
	for _, sys := range krewPlatforms {
		if n := len(krewSelecting(s.Platforms, sys)); n > 1 {
			return nil, fmt.Errorf("%d platforms select %s", n, sys)
		}
	}
	return &p, nil
}

func checkKrewPlatform(p KrewPlatform) error {
	switch {
	case p.URI == "":
		return errors.New("want a uri")
	case !krewSHA256.MatchString(p.SHA256):
		return fmt.Errorf("sha256 %q: want 64 lower-case hex digits", p.SHA256)
	case p.Bin == "":
		return errors.New("want a bin")
	case p.Files != nil && len(p.Files) == 0:
		return errors.New("files: want none or some, not an empty list")
	case p.Selector == nil || (len(p.Selector.MatchLabels) == 0 && len(p.Selector.MatchExpressions) == 0):
		return errors.New("want a selector")
	}
	for _, f := range p.Files {
		if f.From == "" || f.To == "" {
			return fmt.Errorf("files: %+v: want from and to", f)
		}
	}
	for k := range p.Selector.MatchLabels {
		if k != "os" && k != "arch" {
			return fmt.Errorf("selector: key %q, want os or arch", k)
		}
	}
	for _, e := range p.Selector.MatchExpressions {
		if e.Key != "os" && e.Key != "arch" {
			return fmt.Errorf("selector: key %q, want os or arch", e.Key)
		}
	}
	if _, err := metav1.LabelSelectorAsSelector(p.Selector); err != nil {
		return fmt.Errorf("selector: %w", err)
	}
	for _, sys := range krewPlatforms {
		if len(krewSelecting([]KrewPlatform{p}, sys)) == 1 {
			return nil
		}
	}
	return fmt.Errorf("selector %v selects no system krew runs on", p.Selector)
}

// krewSelecting are the platforms whose selector selects a system.
func krewSelecting(ps []KrewPlatform, sys Platform) []KrewPlatform {
	var out []KrewPlatform
	for _, p := range ps {
		sel, err := metav1.LabelSelectorAsSelector(p.Selector)
		if err == nil && sel.Matches(labels.Set{"os": sys.OS, "arch": sys.Arch}) {
			out = append(out, p)
		}
	}
	return out
}

// krewInstall is what krew installs of an archive whose members are
// given: each file operation's from a member's name, or a pattern
// matching some, copied to to (its own name when to is "."); all members
// when the platform names no files. The bin must be installed, and a
// licence.
func krewInstall(p KrewPlatform, members []string) ([]string, error) {
	ops := p.Files
	if ops == nil {
		ops = []KrewFile{{From: "*", To: "."}}
	}
	var installed []string
	for _, op := range ops {
		if slices.Contains(members, op.From) {
			to := op.To
			if path.Clean(to) == "." {
				to = path.Base(op.From)
			}
			installed = append(installed, path.Clean(to))
			continue
		}
		matched := false
		for _, m := range members {
			if ok, err := path.Match(op.From, m); err != nil {
				return nil, fmt.Errorf("files: from %q: %w", op.From, err)
			} else if ok {
				installed, matched = append(installed, path.Join(op.To, path.Base(m))), true
			}
		}
		if !matched {
			return nil, fmt.Errorf("files: from %q matches nothing in the archive (%v)", op.From, members)
		}
	}
	if !slices.Contains(installed, path.Clean(p.Bin)) {
		return nil, fmt.Errorf("bin %s is not installed (installed: %v)", p.Bin, installed)
	}
	if !slices.ContainsFunc(installed, func(f string) bool { return slices.Contains(krewLicenceFiles, strings.ToLower(path.Base(f))) }) {
		return nil, fmt.Errorf("no licence file is installed (installed: %v; krew-index wants one of %v)", installed, krewLicenceFiles)
	}
	return installed, nil
}
