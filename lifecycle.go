package plegvet

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/featurelist"
	"github.com/plegvet/plegvet/internal/inputfile"
	"github.com/plegvet/plegvet/internal/tree"
)

// readLifecycle reads the tree's own feature-list tool and the version it
// calls current (featurelist.GeneratorFile, BinaryVersionFile): nil and
// no problem when the tree has no such tool (before v1.33, or a fork that
// dropped it); a tool or version file that cannot be read is a problem.
func readLifecycle(t *tree.Tree) (*featurelist.Generator, string) {
	name := filepath.Join(t.Dir, filepath.FromSlash(featurelist.GeneratorFile))
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	data, err := inputfile.Read(name)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v (the feature list's rules not read)", featurelist.GeneratorFile, err)
	}
	g, err := featurelist.ReadGenerator(featurelist.GeneratorFile, data)
	if err != nil {
		return nil, err.Error() + " (the feature list's rules not read)"
	}
	const module = "k8s.io/component-base"
	rel := featurelist.BinaryVersionFile
	dir := t.ModuleDir(module)
	if dir == "" {
		return nil, fmt.Sprintf("%s: not in the tree (the version the feature list's rules call current not read)", rel)
	}
	data, err = inputfile.Read(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(rel, "staging/src/"+module+"/"))))
	if err == nil {
		g.Current, err = featurelist.ReadBinaryVersion(rel, data)
	}
	if err != nil {
		return nil, fmt.Sprintf("%s (the version the feature list's rules call current not read)", errorText(rel, err))
	}
	return &g, ""
}

// errorText names the file once: featurelist's errors do, others do not.
func errorText(rel string, err error) string {
	var fe *featurelist.Error
	if errors.As(err, &fe) {
		return err.Error()
	}
	return rel + ": " + err.Error()
}

// ListGates is FeatureList in featurelist's terms: what the tree's list
// should hold, named as ListNames says, in the tool's order.
func (r *GatesReport) ListGates() []featurelist.Gate {
	entries := r.FeatureList()
	out := make([]featurelist.Gate, len(entries))
	for i, e := range entries {
		g := featurelist.Gate{Name: e.Name, Specs: make([]featurelist.Spec, len(e.Gate.Specs))}
		for j, s := range e.Gate.Specs {
			g.Specs[j] = featurelist.Spec{Default: s.Default, LockToDefault: s.LockToDefault, PreRelease: s.PreRelease, Version: s.Version, MinCompatibility: s.MinCompatibilityVersion}
		}
		out[i] = g
	}
	return out
}

// WriteFeatureList writes FeatureList as the tree's feature-list tool
// writes versioned_feature_list.yaml, its header included: the bytes
// hack/update-featuregates.sh writes (a tree without the tool gets no
// header). With annotate, comment lines give each gate's and spec's
// position in the code.
func (r *GatesReport) WriteFeatureList(w io.Writer, annotate bool) error {
	header := ""
	if r.Lifecycle != nil {
		header = r.Lifecycle.Header
	}
	var at featurelist.Annotate
	if annotate {
		entries := r.FeatureList()
		at = func(gate, spec int) string {
			g := entries[gate].Gate
			p := g.Entry
			if spec >= 0 {
				p = g.Specs[spec].Pos
			} else if g.Decl != nil {
				p = *g.Decl
			}
			return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
		}
	}
	return featurelist.WriteYAML(w, header, r.ListGates(), at)
}
