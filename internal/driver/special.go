package driver

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/internal/inputfile"
	"github.com/plegvet/plegvet/internal/tree"
)

// specialGoFiles names, one line each, the files named *.go that are not
// regular files (a FIFO, a device, a socket) in the directories the
// patterns name: the go command opens every .go file of a package it
// lists, and the open of a FIFO blocks for ever. The lines are the
// subcommands' (inputfile's words), relative to the working directory.
// Packages outside the module (the module cache, GOROOT) are not looked
// at: the go command writes those itself.
func specialGoFiles(patterns []string) []string {
	wd, err := os.Getwd()
	if err != nil {
		return nil // listPackages says so
	}
	var lines []string
	check := func(name string) {
		if err := inputfile.Regular(name); err != nil {
			if rel, err := filepath.Rel(wd, name); err == nil && filepath.IsLocal(rel) {
				name = rel
			}
			lines = append(lines, filepath.ToSlash(inputfile.QuoteName(name))+": "+err.Error())
		}
	}
	seen := map[string]bool{}
	for _, p := range patterns {
		if strings.HasSuffix(p, ".go") {
			check(filepath.Join(wd, p))
			continue
		}
		dir, recursive := patternDir(wd, p)
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		walkPackageDirs(dir, recursive, func(name string) { check(name) })
	}
	return lines
}

// patternDir is the directory a package pattern starts from, and whether
// it names the packages below it too (a "..." pattern, or "all"); "" for
// a pattern that names no directory of the working directory's module.
func patternDir(wd, p string) (dir string, recursive bool) {
	if i := strings.Index(p, "..."); i >= 0 {
		p, recursive = strings.TrimSuffix(p[:i], "/"), true
	}
	switch {
	case p == "" && recursive:
		p = "." // "..." alone
	case p == "std" || p == "cmd":
		return "", false
	}
	if build.IsLocalImport(p) || filepath.IsAbs(p) {
		return filepath.Join(wd, p), recursive
	}
	t, err := tree.OpenModule(wd)
	if err != nil {
		return "", false
	}
	if p == "all" {
		return t.Dir, true
	}
	if p == t.Module {
		return t.Dir, recursive
	}
	return t.PackageDir(p), recursive
}

// walkPackageDirs calls check for every file of dir named *.go that is
// not a regular file, and, when recursive, of the directories below it
// that a "..." pattern matches (as the go command: not testdata, vendor,
// nor a directory whose name starts with "." or "_", nor another module).
// Files whose name starts with "." or "_" are not read by the go command.
func walkPackageDirs(dir string, recursive bool, check func(string)) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // listPackages says what cannot be read
		}
		name := d.Name()
		if d.IsDir() {
			if path == dir {
				return nil
			}
			if !recursive || name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Lstat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_") && !d.Type().IsRegular() {
			check(path)
		}
		return nil
	})
}
