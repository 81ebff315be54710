// Package archives builds the release archives of kubectl-pleg and
// plegvet for every platform krew installs on, and writes the krew
// manifest that points at them: each archive's URI and sha256, read from
// the files built, never typed.
package archives

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/semver"
	"golang.org/x/sync/errgroup"
)

// Platform is an operating system and architecture, as GOOS and GOARCH
// and krew's selector labels name them.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

// Platforms are those released: Linux, macOS and Windows, on amd64 and
// arm64.
func Platforms() []Platform {
	var out []Platform
	for _, os := range []string{"linux", "darwin", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			out = append(out, Platform{os, arch})
		}
	}
	return out
}

// Program is a command released in archives of its own.
type Program struct {
	// Name is the binary's name (kubectl-pleg), and the archives' prefix.
	Name string
	// ModuleDir is the directory of the module that holds it, Package
	// its package there (./cmd/kubectl-pleg).
	ModuleDir, Package string
	// Extra are files put beside the binary in each of its archives
	// (README.md), by their name there, each from its path here; LICENSE
	// is required.
	Extra map[string]string
}

// Archive is one archive built.
type Archive struct {
	Program  string
	Platform Platform
	// File is the archive's name (kubectl-pleg_linux_amd64.tar.gz), in
	// the output directory; Bin the binary in it; SHA256 its hash, hex.
	File, Bin, SHA256 string
}

// Name is the archive file of a program for a platform: a .zip for
// Windows, a .tar.gz elsewhere.
func Name(program string, p Platform) string {
	if p.OS == "windows" {
		return program + "_" + p.String() + ".zip"
	}
	return program + "_" + p.String() + ".tar.gz"
}

// binName is the binary's name on a platform.
func binName(program string, p Platform) string {
	if p.OS == "windows" {
		return program + ".exe"
	}
	return program
}

// Options say what Build builds.
type Options struct {
	Programs  []Program
	Platforms []Platform
	// Out is the directory the archives and SHA256SUMS are written to.
	Out string
	// Jobs bounds the go builds run at once; 0 means 2.
	Jobs int
}

// Licence is the licence's file in every archive, as at the repository's
// root.
const Licence = "LICENSE"

// archiveTime is every archive member's modification time: archives of
// the same binaries are the same bytes.
var archiveTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Build cross-compiles every program for every platform (CGO off,
// -trimpath, no VCS stamp, symbols stripped) and archives each with the
// extra files, then writes SHA256SUMS. The archives are reproducible:
// members in a fixed order with a fixed time and mode.
func Build(ctx context.Context, opts Options) ([]Archive, error) {
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	bins, err := os.MkdirTemp("", "plegvet-archives-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bins)
	var jobs []Archive
	for _, prog := range opts.Programs {
		if _, ok := prog.Extra[Licence]; !ok {
			return nil, fmt.Errorf("%s: no %s among the files archived with it; every release archive carries the licence", prog.Name, Licence)
		}
		for _, p := range opts.Platforms {
			jobs = append(jobs, Archive{Program: prog.Name, Platform: p, File: Name(prog.Name, p), Bin: binName(prog.Name, p)})
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	if opts.Jobs <= 0 {
		opts.Jobs = 2
	}
	g.SetLimit(opts.Jobs)
	for i := range jobs {
		a := &jobs[i]
		prog := program(opts.Programs, a.Program)
		g.Go(func() error {
			bin := filepath.Join(bins, a.Platform.String(), a.Bin)
			if err := goBuild(gctx, prog, a.Platform, bin); err != nil {
				return err
			}
			sum, err := writeArchive(filepath.Join(opts.Out, a.File), a.Platform, bin, prog.Extra)
			a.SHA256 = sum
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var sums strings.Builder
	for _, a := range jobs {
		fmt.Fprintf(&sums, "%s  %s\n", a.SHA256, a.File)
	}
	return jobs, os.WriteFile(filepath.Join(opts.Out, "SHA256SUMS"), []byte(sums.String()), 0o644)
}

func program(ps []Program, name string) Program {
	for _, p := range ps {
		if p.Name == name {
			return p
		}
	}
	return Program{}
}

// goBuild builds a program for a platform into bin.
func goBuild(ctx context.Context, prog Program, p Platform, bin string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", bin, prog.Package)
	cmd.Dir = prog.ModuleDir
	cmd.Env = append(os.Environ(), "GOOS="+p.OS, "GOARCH="+p.Arch, "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("building %s for %s: %w\n%s", prog.Name, p, err, out)
	}
	return nil
}

// writeArchive writes the binary and the extra files (sorted by name) as
// one archive, and returns its sha256.
func writeArchive(file string, p Platform, bin string, extra map[string]string) (string, error) {
	members := []string{filepath.Base(bin)}
	sources := map[string]string{filepath.Base(bin): bin}
	var names []string
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		members = append(members, name)
		sources[name] = extra[name]
	}
	var buf bytes.Buffer
	var err error
	if p.OS == "windows" {
		err = writeZip(&buf, members, sources)
	} else {
		err = writeTarGz(&buf, members, sources)
	}
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), os.WriteFile(file, buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, members []string, sources map[string]string) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for i, name := range members {
		data, err := os.ReadFile(sources[name])
		if err != nil {
			return err
		}
		mode := int64(0o644)
		if i == 0 {
			mode = 0o755 // the binary
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(data)), ModTime: archiveTime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, members []string, sources map[string]string) error {
	zw := zip.NewWriter(w)
	for i, name := range members {
		data, err := os.ReadFile(sources[name])
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: archiveTime}
		mode := os.FileMode(0o644)
		if i == 0 {
			mode = 0o755
		}
		h.SetMode(mode)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// Plugin is the program the krew manifest installs.
const Plugin = "kubectl-pleg"

// Verify reads back what Build wrote and the manifest filled from it, as
// krew-index and a user's krew would: the manifest passes krew's checks
// (ParseKrewManifest), every platform of Platforms is in it once, its uri
// the release's address of an archive in dir, its sha256 that archive's,
// its bin a binary in that archive beside the extra files, and its files
// install the bin and a licence.
func Verify(dir string, manifest []byte, version string, extra []string) error {
	m, err := ParseKrewManifest("pleg", manifest)
	if err != nil {
		return err
	}
	if m.Spec.Version != version {
		return fmt.Errorf("the manifest's version is %q, want %q", m.Spec.Version, version)
	}
	seen := map[Platform]bool{}
	for _, p := range m.Spec.Platforms {
		pl := Platform{p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]}
		if seen[pl] {
			return fmt.Errorf("the manifest names %s twice", pl)
		}
		seen[pl] = true
		want := ReleaseURL + "/" + version + "/" + Name(Plugin, pl)
		if p.URI != want {
			return fmt.Errorf("%s: uri %s, want %s", pl, p.URI, want)
		}
		data, err := os.ReadFile(filepath.Join(dir, Name(Plugin, pl)))
		if err != nil {
			return fmt.Errorf("%s: %w", pl, err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != p.SHA256 {
			return fmt.Errorf("%s: sha256 %s in the manifest, %x in %s", pl, p.SHA256, sum, Name(Plugin, pl))
		}
		members, err := list(data, pl)
		if err != nil {
			return fmt.Errorf("%s: %w", Name(Plugin, pl), err)
		}
		if want := append([]string{binName(Plugin, pl)}, extra...); p.Bin != want[0] || !slices.Equal(members, want) {
			return fmt.Errorf("%s: bin %s, members %v; want %s and %v", Name(Plugin, pl), p.Bin, members, want[0], want)
		}
		if _, err := krewInstall(p, members); err != nil {
			return fmt.Errorf("%s: %w", Name(Plugin, pl), err)
		}
	}
	for _, pl := range Platforms() {
		if !seen[pl] {
			return fmt.Errorf("the manifest names no %s", pl)
		}
	}
	if len(seen) != len(Platforms()) {
		return fmt.Errorf("the manifest names %d platforms, want %d", len(seen), len(Platforms()))
	}
	return nil
}

// ReleaseURL is where a version's archives are published: ReleaseURL/VERSION/ARCHIVE.
const ReleaseURL = "https://github.com/plegvet/plegvet/releases/download/kubectl-pleg"

// list names an archive's members, in order.
func list(data []byte, p Platform) ([]string, error) {
	var out []string
	if p.OS == "windows" {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			out = append(out, f.Name)
		}
		return out, nil
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, h.Name)
	}
}

// uriLine and shaLine are the template's lines that Manifest fills.
var (
	uriLine = regexp.MustCompile(`^\s*uri:\s*\S*/([^/\s]+)\s*$`)
	shaLine = regexp.MustCompile(`^(\s*sha256:\s*)SHA256\s*$`)
)

// Manifest fills the krew manifest template for a version: VERSION
// replaced, and each platform's sha256 set to the hash of the archive its
// uri names. An archive the template names that was not built, or one
// built that it does not name, is an error.
func Manifest(template []byte, version string, built []Archive) ([]byte, error) {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return nil, fmt.Errorf("version %q: want a semantic version such as v0.1.0", version)
	}
	sums := map[string]string{}
	for _, a := range built {
		if a.Program == Plugin {
			sums[a.File] = a.SHA256
		}
	}
	used := map[string]bool{}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(template))
	archive := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.ReplaceAll(sc.Text(), "VERSION", version)
		if m := uriLine.FindStringSubmatch(line); m != nil {
			archive = m[1]
		}
		if m := shaLine.FindStringSubmatch(line); m != nil {
			sum, ok := sums[archive]
			if !ok {
				return nil, fmt.Errorf("manifest line %d: no archive %q was built", n, archive)
			}
			line, used[archive] = m[1]+sum, true
		}
		out.WriteString(line + "\n")
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for file := range sums {
		if !used[file] {
			return nil, fmt.Errorf("the manifest names no platform for the archive %s", file)
		}
	}
	return out.Bytes(), nil
}
