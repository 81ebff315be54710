package driver

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// specialGoFiles names, one line each, the files named *.go that are not
// regular files (a FIFO, a device, a socket) where the go command may read
// the patterns' packages and their imports: the module of the working
// directory, vendor/ and the modules nested in it included (a go.work
// uses them), and the directories the patterns name outside it. The go
// command opens every .go file of a package it lists, and the open of a
// FIFO blocks for ever. The lines are the subcommands' (inputfile's
// words), the file relative to the working directory. The module cache
// and GOROOT are not looked at: the go command writes those itself.
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
	root := ""
	if t, err := tree.OpenModule(wd); err == nil {
		root = t.Dir
		walkPackageDirs(root, true, check)
	}
	for _, p := range patterns {
		if strings.HasSuffix(p, ".go") {
			check(filepath.Join(wd, p))
			continue
		}
		if dir, recursive := patternDir(wd, p); dir != "" && (root == "" || !within(root, dir)) {
			walkPackageDirs(dir, recursive, check)
		}
	}
	return lines
}

// patternDir is the directory a pattern that names one starts from (a
// relative or absolute path), and whether it names the packages below it
// too ("..."); "" for an import path.
func patternDir(wd, p string) (dir string, recursive bool) {
	if i := strings.Index(p, "..."); i >= 0 {
		p, recursive = strings.TrimSuffix(p[:i], "/"), true
	}
	if p == "" && recursive {
		p = "." // "..." alone
	}
	if build.IsLocalImport(p) || filepath.IsAbs(p) {
		return filepath.Join(wd, p), recursive
	}
	return "", false
}

func within(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && filepath.IsLocal(rel)
}

// walkPackageDirs calls check for every file of dir named *.go that is
// not a regular file and, when recursive, of every directory below it
// that may hold a package (not testdata, nor a directory whose name
// starts with "." or "_"). Files whose name starts with "." or "_" are
// not read by the go command.
func walkPackageDirs(dir string, recursive bool, check func(string)) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // listPackages says what cannot be read
		}
		name := d.Name()
		if d.IsDir() {
			if path != dir && (!recursive || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
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
