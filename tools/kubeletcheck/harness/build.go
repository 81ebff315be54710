package harness

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
)

// Builder builds the components from source into a cache directory that
// outlives a test run: a checkout and a kubelet take minutes on 2 cores
// the first time, and seconds after.
type Builder struct {
	// Cache holds checkouts and binaries.
	Cache string
	// CheckoutScript is k8s-checkout.sh, which rebuilds a Kubernetes
	// checkout (with staging/) from the module proxy.
	CheckoutScript string
	Logf           func(string, ...any)
}

// NewBuilder finds the cache (PLEGVET_KUBELETCHECK_CACHE, else the user's
// cache directory) and the checkout script (PLEGVET_K8S_CHECKOUT, else
// ../shared/tools/k8s-checkout.sh beside the plegvet repository).
func NewBuilder(logf func(string, ...any)) (*Builder, error) {
	cache := os.Getenv("PLEGVET_KUBELETCHECK_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory for the builds: %w", err)
		}
		cache = filepath.Join(dir, "plegvet-kubeletcheck")
	}
	script := os.Getenv("PLEGVET_K8S_CHECKOUT")
	if script == "" {
		root, err := repoRoot()
		if err != nil {
			return nil, err
		}
		script = filepath.Join(filepath.Dir(root), "shared", "tools", "k8s-checkout.sh")
	}
	if _, err := os.Stat(script); err != nil {
		return nil, fmt.Errorf("%w: no checkout script at %s (set PLEGVET_K8S_CHECKOUT)", ErrUnsupported, script)
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return nil, err
	}
	return &Builder{Cache: cache, CheckoutScript: script, Logf: logf}, nil
}

// repoRoot is the plegvet repository: the nearest directory upwards whose
// go.mod declares plegvet's module.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/plegvet/plegvet\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("not inside the plegvet repository")
		}
		dir = parent
	}
}

// Checkout returns a Kubernetes checkout of version, built by the script
// when missing.
func (b *Builder) Checkout(ctx context.Context, version string) (string, error) {
	dest := filepath.Join(b.Cache, "k8s-"+version)
	cmd := exec.CommandContext(ctx, "bash", b.CheckoutScript, version, dest)
	cmd.Env = append(os.Environ(), "VERIFY=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("k8s-checkout.sh %s: %w\n%s", version, err, LastLines(out, 15))
	}
	return dest, nil
}

// Kubernetes builds cmd/NAME (kubelet, kube-apiserver) of a release with
// its version stamped, as a release build stamps it.
func (b *Builder) Kubernetes(ctx context.Context, version, name string) (string, error) {
	bin := filepath.Join(b.Cache, "bin", name+"-"+version)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	src, err := b.Checkout(ctx, version)
	if err != nil {
		return "", err
	}
	major, minor := "1", strings.SplitN(strings.TrimPrefix(version, "v1."), ".", 2)[0]
	pkg := "k8s.io/component-base/version"
	ldflags := fmt.Sprintf("-X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean",
		pkg, version, pkg, major, pkg, minor, pkg)
	b.Logf("building %s %s from %s", name, version, src)
	return bin, b.goBuild(ctx, src, bin, nil, "-ldflags", ldflags, "./cmd/"+name)
}

// Module builds pkg of the module mod@version, fetched with the go command
// and copied (the module cache is read-only), into the cache as name.
func (b *Builder) Module(ctx context.Context, mod, version, pkg, name string, env []string, flags ...string) (string, error) {
	bin := filepath.Join(b.Cache, "bin", name+"-"+version)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod+"@"+version)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	cmd.Dir = b.Cache
	out, err := cmd.Output()
	var dl struct{ Dir, Error string }
	if err == nil {
		err = json.Unmarshal(out, &dl)
	}
	if err != nil || dl.Dir == "" {
		return "", fmt.Errorf("fetching %s@%s: %v %s", mod, version, err, dl.Error)
	}
	src := filepath.Join(b.Cache, "src", name+"-"+version)
	if _, err := os.Stat(src); err != nil {
		tmp := src + ".tmp"
		os.RemoveAll(tmp)
		if err := os.CopyFS(tmp, os.DirFS(dl.Dir)); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, src); err != nil {
			return "", err
		}
	}
	b.Logf("building %s %s", name, version)
	return bin, b.goBuild(ctx, src, bin, append([]string{"GOFLAGS=-mod=mod"}, env...), append(flags, pkg)...)
}

// goBuild builds into a temporary name and renames, so that a build cut
// short leaves no binary behind to be taken for a whole one.
func (b *Builder) goBuild(ctx context.Context, dir, bin string, env []string, args ...string) error {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	tmp := bin + ".tmp"
	cmd := exec.CommandContext(ctx, "go", append([]string{"build", "-o", tmp}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK="), env...)
	if data, err := os.ReadFile(filepath.Join(dir, ".make-checkout.goflags")); err == nil {
		cmd.Env = append(cmd.Env, "GOFLAGS="+strings.TrimSpace(string(data)))
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %w\n%s", strings.Join(args, " "), dir, err, LastLines(out, 20))
	}
	return os.Rename(tmp, bin)
}

// Crictl builds crictl from cri-tools at version.
func (b *Builder) Crictl(ctx context.Context, version string) (string, error) {
	return b.Module(ctx, "sigs.k8s.io/cri-tools", version, "./cmd/crictl", "crictl", []string{"CGO_ENABLED=0"})
}

// Runc builds runc at version, with cgo (its nsenter is C) and seccomp
// (Debian's libseccomp-dev): a kubelet's pods ask for seccomp profiles.
func (b *Builder) Runc(ctx context.Context, version string) (string, error) {
	return b.Module(ctx, "github.com/opencontainers/runc", version, ".", "runc", []string{"CGO_ENABLED=1"}, "-trimpath", "-tags", "seccomp")
}

// Containerd builds cmd/containerd of containerd v2 at version, without
// cgo and the storage drivers that need it.
func (b *Builder) Containerd(ctx context.Context, version string) (string, error) {
	return b.Module(ctx, "github.com/containerd/containerd/v2", version, "./cmd/containerd", "containerd",
		[]string{"CGO_ENABLED=0"}, "-tags", "no_btrfs no_devmapper no_zfs")
}

// PauseImage is the image every pod of the harness runs, sandbox and
// container alike: no registry is reachable here.
const PauseImage = "localhost/plegvet/pause:1"

const pauseSource = `package main

import (
	"os"
	"os/signal"
	"syscall"
)

// A pod's process that waits to be stopped.
func main() {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT)
	<-c
}
`

// PauseImageArchive builds a static binary that waits for SIGTERM and
// writes it as a one-layer image in the docker-archive format that
// ctr image import reads, named PauseImage.
func (b *Builder) PauseImageArchive(ctx context.Context) (string, error) {
	archive := filepath.Join(b.Cache, "pause-image.tar")
	if _, err := os.Stat(archive); err == nil {
		return archive, nil
	}
	src := filepath.Join(b.Cache, "src", "pause")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module pause\n\ngo 1.26\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(pauseSource), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(src, "pause")
	if err := b.goBuild(ctx, src, bin, []string{"CGO_ENABLED=0", "GOFLAGS="}, "-ldflags=-s", "."); err != nil {
		return "", err
	}
	exe, err := os.ReadFile(bin)
	if err != nil {
		return "", err
	}
	var layer bytes.Buffer
	lw := tar.NewWriter(&layer)
	if err := lw.WriteHeader(&tar.Header{Name: "pause", Mode: 0o755, Size: int64(len(exe)), Typeflag: tar.TypeReg}); err != nil {
		return "", err
	}
	lw.Write(exe)
	if err := lw.Close(); err != nil {
		return "", err
	}
	sum := sha256.Sum256(layer.Bytes())
	config, _ := json.Marshal(map[string]any{
		"architecture": goruntime.GOARCH, "os": "linux",
		"config": map[string]any{"Entrypoint": []string{"/pause"}},
		"rootfs": map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + hex.EncodeToString(sum[:])}},
	})
	manifest, _ := json.Marshal([]map[string]any{{"Config": "config.json", "RepoTags": []string{PauseImage}, "Layers": []string{"layer.tar"}}})
	var out bytes.Buffer
	w := tar.NewWriter(&out)
	for _, f := range []struct {
		name string
		data []byte
	}{{"manifest.json", manifest}, {"config.json", config}, {"layer.tar", layer.Bytes()}} {
		if err := w.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			return "", err
		}
		w.Write(f.data)
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return archive, os.WriteFile(archive, out.Bytes(), 0o644)
}
