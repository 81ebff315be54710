package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Versions of the components built from source.
const (
	CrictlVersion     = "v1.34.0"
	ContainerdVersion = "v2.1.4"
	RuncVersion       = "v1.5.3"
)

// Parts are the built pieces every scenario shares.
type Parts struct {
	Builder *Builder
	Crictl  string
	Image   string
}

// Prepare readies the host and builds crictl and the pause image.
func Prepare(ctx context.Context, logf func(string, ...any)) (*Parts, error) {
	if err := PrepareHost(ctx, logf); err != nil {
		return nil, err
	}
	b, err := NewBuilder(logf)
	if err != nil {
		return nil, err
	}
	crictl, err := b.Crictl(ctx, CrictlVersion)
	if err != nil {
		return nil, err
	}
	image, err := b.PauseImageArchive(ctx)
	if err != nil {
		return nil, err
	}
	return &Parts{Builder: b, Crictl: crictl, Image: image}, nil
}

// NewRuntimeNamed builds (for "built") and lays out a runtime in a fresh
// short directory; the caller removes dir when done.
func (p *Parts) NewRuntimeNamed(ctx context.Context, name string) (rt *Runtime, dir string, err error) {
	dir, err = os.MkdirTemp("", "kc-")
	if err != nil {
		return nil, "", err
	}
	switch name {
	case "debian":
		rt, err = NewRuntime(name, "/usr/bin/containerd", "/usr/bin/crun", "", p.Crictl, dir)
	case "built":
		var bin, shim, runc string
		if bin, err = p.Builder.Containerd(ctx, ContainerdVersion); err != nil {
			break
		}
		if runc, err = p.Builder.Runc(ctx, RuncVersion); err != nil {
			break
		}
		shim, err = p.Builder.Module(ctx, "github.com/containerd/containerd/v2", ContainerdVersion, "./cmd/containerd-shim-runc-v2", "containerd-shim-runc-v2", []string{"CGO_ENABLED=0"})
		if err != nil {
			break
		}
		// containerd finds its shim on PATH by this exact name.
		shimDir := filepath.Join(dir, "shim")
		if err = os.MkdirAll(shimDir, 0o755); err == nil {
			err = os.Symlink(shim, filepath.Join(shimDir, "containerd-shim-runc-v2"))
		}
		if err == nil {
			rt, err = NewRuntime(name, bin, runc, shimDir, p.Crictl, dir)
		}
	default:
		err = fmt.Errorf("no runtime %q: want debian or built", name)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, "", err
	}
	return rt, dir, nil
}

// NodeBins builds (or finds built) the release's kubelet and
// kube-apiserver: a node's two binaries.
func (p *Parts) NodeBins(ctx context.Context, release string) (kubelet, apiserver string, err error) {
	if kubelet, err = p.Builder.Kubernetes(ctx, release, "kubelet"); err != nil {
		return "", "", err
	}
	if apiserver, err = p.Builder.Kubernetes(ctx, release, "kube-apiserver"); err != nil {
		return "", "", err
	}
	return kubelet, apiserver, nil
}

// TableRun is what a table command needs before running its scenario on
// a release: the parts, the node's binaries, and the rules the plegvet of
// a repository writes for the release, in Dir, which Close removes.
type TableRun struct {
	Parts              *Parts
	Kubelet, APIServer string
	Rules, Dir         string
}

// NewTableRun prepares the parts and builds what a run of release needs;
// name prefixes its temporary directory.
func NewTableRun(ctx context.Context, name, release, repo string, logf func(string, ...any)) (*TableRun, error) {
	parts, err := Prepare(ctx, logf)
	if err != nil {
		return nil, err
	}
	t := &TableRun{Parts: parts}
	if t.Kubelet, t.APIServer, err = parts.NodeBins(ctx, release); err != nil {
		return nil, err
	}
	if t.Dir, err = os.MkdirTemp("", name+"-"); err != nil {
		return nil, err
	}
	if t.Rules, err = AlertRules(ctx, repo, release, t.Dir); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// Close removes the run's directory.
func (t *TableRun) Close() { os.RemoveAll(t.Dir) }

// KubectlPleg builds the repository's kubectl-pleg into the run's
// directory once, and returns a probe that grants the node engineer the
// README's RBAC once the node is Ready: what a fault scenario's kubectl
// pleg loop needs.
func (t *TableRun) KubectlPleg(ctx context.Context, repo string) (bin string, probe func(context.Context, *Node, string) error, err error) {
	dir := filepath.Join(repo, "tools", "kubectl-pleg")
	if bin, err = BuildKubectlPleg(ctx, dir, t.Dir); err != nil {
		return "", nil, err
	}
	return bin, func(ctx context.Context, n *Node, phase string) error {
		if phase != PhaseReady {
			return nil
		}
		return ApplyReadmeRBAC(ctx, n.Control, filepath.Join(dir, "README.md"))
	}, nil
}
