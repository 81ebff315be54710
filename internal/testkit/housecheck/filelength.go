package housecheck

import (
	"bytes"
	"fmt"
	"go/token"
	"io/fs"
	"path"
	"strings"
)

// MaxLines is the length at which a non-test Go file is too long to read
// in one sitting: a file that long holds more than one job, and splitting
// it by what each part decides lets its name say which.
const MaxLines = 500

// LongFiles reports each non-test Go file of fsys (a repository's tree,
// the tools/ modules included) of MaxLines lines or more. Tests are left
// out (a table of cases reads in any length), and so are testdata
// folders: their files are inputs shaped like the code they stand in for.
func LongFiles(fsys fs.FS) ([]Finding, error) {
	var out []Finding
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if base := path.Base(name); name != "." && (base == "testdata" || strings.HasPrefix(base, ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		n := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			n++
		}
		if n >= MaxLines {
			out = append(out, Finding{token.Position{Filename: name},
				fmt.Sprintf("%d lines, at most %d: split it by what each part decides, so that each file's name says its one job", n, MaxLines-1)})
		}
		return nil
	})
	return out, err
}
