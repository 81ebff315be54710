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
