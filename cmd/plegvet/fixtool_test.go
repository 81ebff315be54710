package main

import (
	"archive/zip"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusedFixes: a fix is written only to a regular file whose
// content is still what was hashed before the analysis; a change of the
// same size (which x/tools' size check lets through, splicing the edit
// at stale offsets) and a symbolic link are refused, each with its file.
func TestRefusedFixes(t *testing.T) {
	dir := t.TempDir()
	same := filepath.Join(dir, "same.go")
	changed := filepath.Join(dir, "changed.go")
	link := filepath.Join(dir, "link.go")
	text := "package p\n\nvar on = true\n"
	before := map[string][sha256.Size]byte{}
	for _, f := range []string{same, changed} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		before[f] = sha256.Sum256([]byte(text))
	}
	if err := os.Symlink(same, link); err != nil {
		t.Fatal(err)
	}
	before[link] = sha256.Sum256([]byte(text))
	// The same size, other content: what an editor's save between the
	// analysis and the fix looks like.
	if err := os.WriteFile(changed, []byte(strings.Replace(text, "true", "fals", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, "fix.zip")
	writeArchive(t, archive, same, changed, link)
	refused, err := refusedFixes(archive, before)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(refused, "\n")
	if len(refused) != 2 || !strings.Contains(got, "changed.go: not fixed: it changed while plegvet analysed it") || !strings.Contains(got, "link.go: not fixed: a symbolic link (to "+same+")") {
		t.Errorf("refused:\n%s\nwant changed.go (its content) and link.go (a link), not same.go", got)
	}
	if strings.Contains(got, "same.go:") {
		t.Errorf("an unchanged regular file was refused:\n%s", got)
	}
}

func writeArchive(t *testing.T, name string, files ...string) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, file := range files {
		w, err := zw.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("package p\n\nvar on = false\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
