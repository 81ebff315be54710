package archives

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func template(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "krew", "pleg.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The manifest gets each archive's hash by the archive its uri names,
// and the version everywhere; an archive not built, or built and not
// named, is an error, as is a version krew would refuse.
func TestManifest(t *testing.T) {
	var built []Archive
	for i, p := range Platforms() {
		built = append(built, Archive{Program: Plugin, Platform: p, File: Name(Plugin, p), SHA256: strings.Repeat(string(rune('a'+i)), 64)})
	}
	m, err := Manifest(template(t), "v0.1.0", built)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(m, []byte("VERSION")) || bytes.Contains(m, []byte("SHA256\n")) {
		t.Errorf("placeholders left:\n%s", m)
	}
	p, err := ParseKrewManifest("pleg", m)
	if err != nil {
		t.Fatalf("krew's checks refuse the filled manifest: %v", err)
	}
	for _, pl := range p.Spec.Platforms {
		if want := binName(Plugin, Platform{pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]}); pl.Bin != want {
			t.Errorf("%s: bin %s, want %s", pl.URI, pl.Bin, want)
		}
		if _, err := krewInstall(pl, []string{pl.Bin, Licence, "README.md"}); err != nil {
			t.Errorf("%s: %v", pl.URI, err)
		}
	}
	for _, a := range built {
		if !bytes.Contains(m, []byte("uri: "+ReleaseURL+"/v0.1.0/"+a.File+"\n    sha256: "+a.SHA256+"\n")) {
			t.Errorf("%s: uri and sha256 not together in\n%s", a.File, m)
		}
	}
	if _, err := Manifest(template(t), "v0.1.0", built[1:]); err == nil || !strings.Contains(err.Error(), "no archive") {
		t.Errorf("a platform not built: %v", err)
	}
	extra := append(built, Archive{Program: Plugin, Platform: Platform{"freebsd", "amd64"}, File: Name(Plugin, Platform{"freebsd", "amd64"})})
	if _, err := Manifest(template(t), "v0.1.0", extra); err == nil || !strings.Contains(err.Error(), "names no platform") {
		t.Errorf("an archive not named: %v", err)
	}
	for _, v := range []string{"0.1.0", "v0.1", "latest"} {
		if _, err := Manifest(template(t), v, built); err == nil {
			t.Errorf("version %q: no error", v)
		}
	}
}

// standIn writes a module whose main says hello: cross-compiled for the
// six platforms in seconds, where the real kubectl-pleg (on client-go)
// takes minutes each; cmd/release-archives builds that one at release.
func standIn(t *testing.T) string {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":    "module example.com/standin\n\ngo 1.26\n",
		"main.go":   "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"stand-in for kubectl-pleg\\n\") }\n",
		"README.md": "# stand-in\n",
		Licence:     "the licence\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The archives built for every platform, the manifest filled from them,
// and Verify reading them back as krew would; the same binaries give the
// same archives; an archive changed after the manifest was written is
// caught; the host's binary, unpacked, runs.
func TestBuildVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles for six platforms")
	}
	src := standIn(t)
	build := func(out string) []Archive {
		built, err := Build(context.Background(), Options{
			Programs:  []Program{{Name: Plugin, ModuleDir: src, Package: ".", Extra: map[string]string{"README.md": filepath.Join(src, "README.md"), Licence: filepath.Join(src, Licence)}}},
			Platforms: Platforms(),
			Out:       out,
		})
		if err != nil {
			t.Fatal(err)
		}
		return built
	}
	extra := []string{Licence, "README.md"}
	out := t.TempDir()
	built := build(out)
	m, err := Manifest(template(t), "v0.1.0", built)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(out, m, "v0.1.0", extra); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range built {
		if !bytes.Contains(sums, []byte(a.SHA256+"  "+a.File+"\n")) {
			t.Errorf("SHA256SUMS lacks %s", a.File)
		}
	}
	out2 := t.TempDir()
	again := build(out2)
	for i := range built {
		if built[i].SHA256 != again[i].SHA256 {
			t.Errorf("%s: %s, then %s: not reproducible", built[i].File, built[i].SHA256, again[i].SHA256)
		}
	}
	if err := Verify(out, m, "v0.2.0", extra); err == nil {
		t.Error("another version: no error")
	}
	victim := filepath.Join(out, Name(Plugin, Platforms()[0]))
	if err := os.WriteFile(victim, []byte("not the archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Verify(out, m, "v0.1.0", extra); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a changed archive: %v", err)
	}
	host := Platform{runtime.GOOS, runtime.GOARCH}
	if host.OS == "windows" || (host.Arch != "amd64" && host.Arch != "arm64") {
		return
	}
	bin := unpack(t, filepath.Join(out2, Name(Plugin, host)))
	got, err := exec.Command(bin).Output()
	if err != nil || string(got) != "stand-in for kubectl-pleg\n" {
		t.Errorf("the unpacked %s printed %q (%v)", bin, got, err)
	}
}

// unpack writes the binary out of a .tar.gz archive and returns its path.
func unpack(t *testing.T, archive string) string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	h, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), h.Name)
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, tr); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}
