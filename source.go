package plegvet

import (
	"context"
	"path/filepath"

	"github.com/plegvet/plegvet/internal/release"
	"github.com/plegvet/plegvet/internal/srcload"
	"github.com/plegvet/plegvet/internal/tree"
)

// Options say which tree to analyse.
type Options struct {
	// Dir is the root of a Kubernetes checkout (a fork's, say); "" means
	// the current directory.
	Dir string
	// Kubernetes, when set, is a released version (v1.36.1) whose
	// k8s.io/kubernetes and k8s.io/cri-api modules are fetched with the
	// go command and analysed as if they were a checkout. Dir is then
	// ignored.
	Kubernetes string
	// Proto, when set, is the CRI api.proto to read instead of the
	// tree's. Alone (Dir and Kubernetes empty) it is read without a tree.
	Proto string
}

// open resolves the options to a tree and the Source that describes it.
func open(ctx context.Context, opts Options, withCRI bool) (*tree.Tree, Source, error) {
	if opts.Kubernetes != "" {
		t, err := release.Fetch(ctx, opts.Kubernetes, withCRI)
		if err != nil {
			return nil, Source{}, err
		}
		return t, Source{Dir: tree.KubernetesModule + "@" + t.Version, KubernetesVersion: t.Version}, nil
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	t, err := tree.Open(dir)
	if err != nil {
		return nil, Source{}, err
	}
	return t, Source{Dir: filepath.ToSlash(filepath.Clean(dir))}, nil
}

// load type-checks the packages (paths relative to the tree's module,
// such as "pkg/features") from source, with the imports also picks when
// the tree holds them, and records how in src.Load.
func load(ctx context.Context, t *tree.Tree, src *Source, also func(string) bool, rel ...string) (*srcload.Result, error) {
	paths := make([]string, len(rel))
	for i, r := range rel {
		paths[i] = t.Module + "/" + r
	}
	res, err := srcload.LoadWith(ctx, t, also, paths...)
	if err != nil {
		return nil, err
	}
	src.Load = Load{Mode: srcload.Mode, Modelled: res.Modelled, Stubbed: len(res.Stubbed), Problems: []string{}}
	if src.Load.Modelled == nil {
		src.Load.Modelled = []string{}
	}
	for _, p := range res.Problems {
		src.Load.Problems = append(src.Load.Problems, p.Error())
	}
	return res, nil
}
