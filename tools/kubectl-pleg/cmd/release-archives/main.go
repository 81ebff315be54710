// Command release-archives builds the release archives of kubectl-pleg
// and plegvet for Linux, macOS and Windows on amd64 and arm64, writes
// their SHA256SUMS, and fills the krew manifest (krew/pleg.yaml) with each
// archive's URI and sha256:
//
//	cd tools/kubectl-pleg && go run ./cmd/release-archives -version v0.1.0 -out dist
//
// dist then holds the archives to publish at the manifest's URIs, and
// pleg.yaml, the manifest to submit to krew-index.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/plegvet/plegvet/tools/kubectl-pleg/internal/archives"
)

func main() {
	version := flag.String("version", "", "the release's version (v0.1.0)")
	out := flag.String("out", "dist", "where to write the archives, SHA256SUMS and pleg.yaml")
	flag.Parse()
	if *version == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: release-archives -version v0.1.0 [-out dist]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "release-archives:", err)
		os.Exit(1)
	}
}

// licence is the repository's LICENSE, from the kubectl-pleg module's
// directory.
var licence = filepath.Join("..", "..", archives.Licence)

// run builds from the kubectl-pleg module's directory (the current one).
func run(ctx context.Context, version, out string) error {
	template, err := os.ReadFile(filepath.Join("krew", "pleg.yaml"))
	if err != nil {
		return fmt.Errorf("want to run in tools/kubectl-pleg: %w", err)
	}
	built, err := archives.Build(ctx, archives.Options{
		Programs: []archives.Program{
			{Name: archives.Plugin, ModuleDir: ".", Package: "./cmd/kubectl-pleg", Extra: map[string]string{"README.md": "README.md", archives.Licence: licence}},
			{Name: "plegvet", ModuleDir: filepath.Join("..", ".."), Package: "./cmd/plegvet", Extra: map[string]string{"README.md": filepath.Join("..", "..", "README.md"), archives.Licence: licence}},
		},
		Platforms: archives.Platforms(),
		Out:       out,
	})
	if err != nil {
		return err
	}
	manifest, err := archives.Manifest(template, version, built)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "pleg.yaml"), manifest, 0o644); err != nil {
		return err
	}
	// As krew will read them: the manifest's every platform, URI and hash
	// against the archives on disk.
	if err := archives.Verify(out, manifest, version, []string{archives.Licence, "README.md"}); err != nil {
		return err
	}
	for _, a := range built {
		fmt.Printf("%s  %s\n", a.SHA256, filepath.Join(out, a.File))
	}
	return nil
}
