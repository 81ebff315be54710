package archives

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// filled is the template filled for v0.1.0 with made-up hashes.
func filled(t *testing.T) string {
	t.Helper()
	var built []Archive
	for _, p := range Platforms() {
		built = append(built, Archive{Program: Plugin, Platform: p, File: Name(Plugin, p), SHA256: strings.Repeat("ab", 32)})
	}
	m, err := Manifest(template(t), "v0.1.0", built)
	if err != nil {
		t.Fatal(err)
	}
	return string(m)
}

// Each of krew's rules refuses a manifest that breaks it; the manifest
// as filled passes them all.
func TestKrewRules(t *testing.T) {
	good := filled(t)
	if _, err := ParseKrewManifest("pleg", []byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"another name", "name: pleg", "name: plug", "named"},
		{"unsafe name", "name: pleg", "name: pl/eg", "named"},
		{"another api", "v1alpha2", "v1alpha1", "apiVersion"},
		{"no short description", "  shortDescription: Show which PLEG each node's kubelet runs\n", "", "short description"},
		{"no caveats", "  caveats: |", "  x-caveats: |", "caveats"},
		{"a version not semantic", "version: v0.1.0", "version: latest", "version"},
		{"a short sha256", strings.Repeat("ab", 32), "abc", "sha256"},
		{"no bin", "    bin: kubectl-pleg\n", "", "bin"},
		{"a selector on another key", "os: linux", "distro: linux", "key"},
		{"a platform krew does not run on", "os: linux", "os: plan9", "selects no system"},
		{"two platforms for one system", "arch: arm64", "arch: amd64", "select"},
		{"files without to", "{from: LICENSE, to: .}", "{from: LICENSE}", "from and to"},
		{"a field krew does not know", "  homepage:", "  home:", "unknown field"},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		if bad == good {
			t.Fatalf("%s: %q is not in the manifest", tc.name, tc.old)
		}
		if _, err := ParseKrewManifest("pleg", []byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// What krew installs of an archive: the files named (all, when none are),
// which must include the bin and a licence.
func TestKrewInstall(t *testing.T) {
	only := func(files ...KrewFile) KrewPlatform { return KrewPlatform{Bin: "kubectl-pleg", Files: files} }
	for _, tc := range []struct {
		name    string
		p       KrewPlatform
		members []string
		want    string
	}{
		{"named", only(KrewFile{"kubectl-pleg", "."}, KrewFile{"LICENSE", "."}), []string{"kubectl-pleg", "LICENSE", "README.md"}, ""},
		{"all by default", KrewPlatform{Bin: "kubectl-pleg"}, []string{"kubectl-pleg", "LICENSE", "README.md"}, ""},
		{"a pattern", only(KrewFile{"*", "."}), []string{"kubectl-pleg", "LICENSE.txt"}, ""},
		{"the licence left out", only(KrewFile{"kubectl-pleg", "."}), []string{"kubectl-pleg", "LICENSE"}, "no licence"},
		{"no licence in the archive", KrewPlatform{Bin: "kubectl-pleg"}, []string{"kubectl-pleg", "README.md"}, "no licence"},
		{"a file not in the archive", only(KrewFile{"kubectl-pleg", "."}, KrewFile{"LICENSE", "."}), []string{"kubectl-pleg"}, "matches nothing"},
		{"the bin renamed", only(KrewFile{"kubectl-pleg", "bin/pleg"}, KrewFile{"LICENSE", "."}), []string{"kubectl-pleg", "LICENSE"}, "bin kubectl-pleg is not installed"},
	} {
		_, err := krewInstall(tc.p, tc.members)
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want))) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// The repository's LICENSE is the Apache License 2.0, word for word (the
// text at https://www.apache.org/licenses/LICENSE-2.0.txt).
func TestLicence(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", Licence))
	if err != nil {
		t.Fatal(err)
	}
	const apache20 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != apache20 {
		t.Errorf("LICENSE's sha256 is %x, not the Apache License 2.0's %s", sum, apache20)
	}
}

// A program archived without the licence is refused before anything is
// built.
func TestBuildWantsLicence(t *testing.T) {
	_, err := Build(context.Background(), Options{
		Programs:  []Program{{Name: Plugin, ModuleDir: t.TempDir(), Package: ".", Extra: map[string]string{"README.md": "README.md"}}},
		Platforms: Platforms(),
		Out:       t.TempDir(),
	})
	if err == nil || !strings.Contains(err.Error(), "no LICENSE") {
		t.Errorf("a program without LICENSE: %v", err)
	}
}
