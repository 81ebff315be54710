package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/plegvet/plegvet/internal/load/inputfile"
)

// fixToolChildEnv marks the run of plegvet that go fix asked for, started
// again by plegvet itself (guardFixes), which then checks its fixes.
const fixToolChildEnv = "PLEGVET_FIXTOOL_RUN"

// guardFixes stands between go fix -fixtool=plegvet and the fixes it
// writes. The go command runs the tool on each package with -fix and a
// vet.cfg naming an archive; the tool (x/tools' unitchecker) computes
// each fixed file whole, from the file as it reads it again after the
// analysis, and checks only that its size did not change; the go command
// then writes the archive's files, through symbolic links. So plegvet
// runs the tool in a child process, having hashed the package's files
// first, and refuses the package's fixes, with exit 1 and one line per
// file, when a file to fix is a symbolic link (it would be written where
// the link points, perhaps outside the tree) or its content changed in
// between (the edits would land at stale offsets). A refused package
// leaves its files as they are: the go command writes no fix of a tool
// run that failed, and keeps nothing of it in its cache.
//
// What it cannot see: a change after the tool ends and before the go
// command writes (it writes once every package is analysed), which the
// fixed file then overwrites.
//
// ok is false when args are not a go fix run that writes (no -fix, -diff,
// or no archive): multichecker answers those.
func guardFixes(args []string, stderr io.Writer) (code int, ok bool) {
	n := len(args)
	if os.Getenv(fixToolChildEnv) != "" || n == 0 || !strings.HasSuffix(args[n-1], ".cfg") {
		return 0, false
	}
	on := map[string]bool{}
	for _, a := range args[:n-1] {
		name, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		on[name] = value == "" || value == "true"
	}
	if !on["fix"] || on["diff"] {
		return 0, false
	}
	var cfg struct {
		GoFiles    []string
		FixArchive string
	}
	data, err := os.ReadFile(args[n-1])
	if err != nil || json.Unmarshal(data, &cfg) != nil || cfg.FixArchive == "" {
		return 0, false // unitchecker says what is wrong with the file
	}
	before := map[string][sha256.Size]byte{}
	for _, f := range cfg.GoFiles {
		if content, err := os.ReadFile(f); err == nil {
			before[f] = sha256.Sum256(content)
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "plegvet: -fix: %s\n", errorLine(err.Error()))
		return exitFailure, true
	}
	child := exec.Command(self, args...)
	child.Env = append(os.Environ(), fixToolChildEnv+"=1")
	child.Stdin, child.Stdout, child.Stderr = os.Stdin, os.Stdout, stderr
	if err := child.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() > 0 {
			return exit.ExitCode(), true
		}
		fmt.Fprintf(stderr, "plegvet: -fix: %s\n", errorLine(err.Error()))
		return exitFailure, true
	}
	refused, err := refusedFixes(cfg.FixArchive, before)
	if err != nil { // the archive is not trusted either
		refused = append(refused, "-fix: reading the fixes: "+errorLine(err.Error()))
	}
	for _, why := range refused {
		fmt.Fprintf(stderr, "plegvet: %s\n", why)
	}
	if len(refused) > 0 {
		// go fix writes nothing of a package whose tool failed.
		os.Remove(cfg.FixArchive)
		return exitFailure, true
	}
	return exitOK, true
}

// refusedFixes says, for each file the archive fixes, why it must not be
// written: a symbolic link, or content that is not what was hashed
// before the analysis (before).
func refusedFixes(archive string, before map[string][sha256.Size]byte) ([]string, error) {
	r, err := zip.OpenReader(archive)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var refused []string
	for _, f := range r.File {
		name := inputfile.QuoteName(f.Name)
		st, err := os.Lstat(f.Name)
		switch {
		case err != nil:
			refused = append(refused, fmt.Sprintf("%s: not fixed: %s", name, errorLine(err.Error())))
			continue
		case st.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(f.Name)
			refused = append(refused, fmt.Sprintf("%s: not fixed: a symbolic link (to %s); plegvet writes no file through a link: fix the file it names", name, inputfile.QuoteName(target)))
			continue
		}
		content, err := os.ReadFile(f.Name)
		want, hashed := before[f.Name]
		if err != nil || !hashed || sha256.Sum256(content) != want {
			refused = append(refused, fmt.Sprintf("%s: not fixed: it changed while plegvet analysed it (the fix would land at stale offsets); run again", name))
		}
	}
	return refused, nil
}
