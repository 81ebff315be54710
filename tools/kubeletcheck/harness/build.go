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

	"golang.org/x/mod/modfile"
)

// Builder builds the components from source into a cache directory that
// outlives a test run: a kubelet takes minutes on 2 cores the first time,
// and nothing after.
type Builder struct {
	// Cache holds the modules the builds run in and the binaries.
	Cache string
	Logf  func(string, ...any)
}

// NewBuilder finds the cache: PLEGVET_KUBELETCHECK_CACHE, else the user's
// cache directory.
func NewBuilder(logf func(string, ...any)) (*Builder, error) {
	cache := os.Getenv("PLEGVET_KUBELETCHECK_CACHE")
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no cache directory for the builds: %w", err)
		}
		cache = filepath.Join(dir, "plegvet-kubeletcheck")
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return nil, err
	}
	return &Builder{Cache: cache, Logf: logf}, nil
}

// download fetches mod@version into the module cache.
func (b *Builder) download(ctx context.Context, mod, version string) (dir, gomod string, err error) {
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod+"@"+version)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	cmd.Dir = b.Cache
	out, err := cmd.Output()
	var dl struct{ Dir, GoMod, Error string }
	if err == nil {
		err = json.Unmarshal(out, &dl)
	}
	if err != nil || dl.Dir == "" {
		return "", "", fmt.Errorf("fetching %s@%s: %v %s", mod, version, err, dl.Error)
	}
	return dl.Dir, dl.GoMod, nil
}

// kubernetesModule writes, once per release, a module that requires
// k8s.io/kubernetes at version: the go command builds its commands from
// the module cache. The release's go.mod replaces each staging module
// (k8s.io/api, ...) with its directory in the git tree, which a
// dependency's replace cannot do; this module replaces it with the
// version the publishing bot cut from that directory, v0.X.Y for v1.X.Y.
// The release's godebug lines are kept, as a release build has them.
func (b *Builder) kubernetesModule(ctx context.Context, version string) (string, error) {
	dir := filepath.Join(b.Cache, "k8s-module-"+version)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	_, gomod, err := b.download(ctx, "k8s.io/kubernetes", version)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	release, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		return "", err
	}
	staging := "v0." + strings.TrimPrefix(version, "v1.")
	f := new(modfile.File)
	f.AddModuleStmt("kubeletcheck.invalid/k8s")
	if err := f.AddGoStmt(release.Go.Version); err != nil {
		return "", err
	}
	for _, g := range release.Godebug {
		if err := f.AddGodebug(g.Key, g.Value); err != nil {
			return "", err
		}
	}
	if err := f.AddRequire("k8s.io/kubernetes", version); err != nil {
		return "", err
	}
	for _, r := range release.Replace {
		to, toVersion := r.New.Path, r.New.Version
		if modfile.IsDirectoryPath(to) {
			to, toVersion = r.Old.Path, staging
		}
		if err := f.AddReplace(r.Old.Path, r.Old.Version, to, toVersion); err != nil {
			return "", err
		}
	}
	out, err := f.Format()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Written last: a go.mod marks the module as made.
	return dir, os.WriteFile(filepath.Join(dir, "go.mod"), out, 0o644)
}

// Kubernetes builds cmd/NAME (kubelet, kube-apiserver) of a release with
// its version stamped, as a release build stamps it.
func (b *Builder) Kubernetes(ctx context.Context, version, name string) (string, error) {
	bin := filepath.Join(b.Cache, "bin", name+"-"+version)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	dir, err := b.kubernetesModule(ctx, version)
	if err != nil {
		return "", err
	}
	major, minor := "1", strings.SplitN(strings.TrimPrefix(version, "v1."), ".", 2)[0]
	pkg := "k8s.io/component-base/version"
	ldflags := fmt.Sprintf("-X %s.gitVersion=%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean",
		pkg, version, pkg, major, pkg, minor, pkg)
	b.Logf("building %s %s in %s", name, version, dir)
	return bin, b.goBuild(ctx, dir, bin, []string{"GOFLAGS=-mod=mod"}, "-ldflags", ldflags, "k8s.io/kubernetes/cmd/"+name)
}

// Module builds pkg of the module mod@version, fetched with the go command
// and copied (the module cache is read-only), into the cache as name.
func (b *Builder) Module(ctx context.Context, mod, version, pkg, name string, env []string, flags ...string) (string, error) {
	bin := filepath.Join(b.Cache, "bin", name+"-"+version)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	modDir, _, err := b.download(ctx, mod, version)
	if err != nil {
		return "", err
	}
	src := filepath.Join(b.Cache, "src", name+"-"+version)
	if _, err := os.Stat(src); err != nil {
		tmp := src + ".tmp"
		os.RemoveAll(tmp)
		if err := os.CopyFS(tmp, os.DirFS(modDir)); err != nil {
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
	cmd.Env = append(append(os.Environ(), "GOWORK=off"), env...)
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
