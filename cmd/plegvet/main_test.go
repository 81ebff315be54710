package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/gotooltest"
	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func TestMain(m *testing.M) {
	// Text is fitted to COLUMNS (else, piped, 80): the tests that compare
	// text read the unfitted layout, wider than any of their lines;
	// TestFitsTheWidth sets its own.
	os.Setenv("COLUMNS", "1000")
	testscript.Main(m, map[string]func(){
		"plegvet": func() { os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	// In parallel with the other parallel tests: TestDriverSignalReachesChildren
	// mostly waits (childGrace), which the scripts' work fills.
	t.Parallel()
	p := testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		// UPDATE_GOLDEN=1 rewrites the want/ files of cmp commands; review
		// the diff before committing it.
		UpdateScripts: os.Getenv("UPDATE_GOLDEN") != "",
		Cmds:          map[string]func(*testscript.TestScript, bool, []string){"mkproxy": mkproxy, "openfiles": openfiles},
		Setup: func(env *testscript.Env) error {
			// go vet -vettool needs the path of the plegvet testscript installed.
			for _, dir := range filepath.SplitList(env.Getenv("PATH")) {
				if _, err := os.Stat(filepath.Join(dir, "plegvet")); err == nil {
					env.Setenv("PLEGVET", filepath.Join(dir, "plegvet"))
					break
				}
			}
			// A look-alike checkout written for the tests.
			tree, err := filepath.Abs(filepath.Join("..", "..", "testdata", "src", "k8s.io", "kubernetes"))
			if err != nil {
				return err
			}
			env.Setenv("K8STREE", tree)
			// Real kubelets' captures, kept by tools/kubeletcheck.
			real, err := filepath.Abs(filepath.Join("..", "..", "nodeverdict", "testdata", "real"))
			if err != nil {
				return err
			}
			env.Setenv("REALCAPTURES", real)
			// Text is fitted to COLUMNS (else 80, piped): the scripts'
			// goldens are the unfitted layout, wider than any of their
			// lines; TestFitsTheWidth holds the fitted ones, at 80 and
			// 100 columns.
			env.Setenv("COLUMNS", "1000")
			return nil
		},
	}
	if err := gotooltest.Setup(&p); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, p)
}

// mkproxy PROXYDIR MODULE VERSION SRCDIR serves the module rooted at
// SRCDIR as MODULE@VERSION from PROXYDIR, a GOPROXY=file:// directory, so
// that a script can let the go command fetch a look-alike with no network.
func mkproxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: mkproxy PROXYDIR MODULE VERSION SRCDIR")
	}
	mod := module.Version{Path: args[1], Version: args[2]}
	src := ts.MkAbs(args[3])
	escPath, err := module.EscapePath(mod.Path)
	ts.Check(err)
	escVersion, err := module.EscapeVersion(mod.Version)
	ts.Check(err)
	dir := filepath.Join(ts.MkAbs(args[0]), filepath.FromSlash(escPath), "@v")
	ts.Check(os.MkdirAll(dir, 0o777))
	base := filepath.Join(dir, escVersion)

	var zipped bytes.Buffer
	ts.Check(zip.CreateFromDir(&zipped, mod, src))
	ts.Check(os.WriteFile(base+".zip", zipped.Bytes(), 0o666))
	goMod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	ts.Check(err)
	ts.Check(os.WriteFile(base+".mod", goMod, 0o666))
	info, err := json.Marshal(struct{ Version string }{mod.Version})
	ts.Check(err)
	ts.Check(os.WriteFile(base+".info", info, 0o666))

	list, err := os.ReadFile(filepath.Join(dir, "list"))
	if !errors.Is(err, fs.ErrNotExist) {
		ts.Check(err)
	}
	versions := strings.Fields(string(list))
	if !slices.Contains(versions, mod.Version) {
		versions = append(versions, mod.Version)
	}
	ts.Check(os.WriteFile(filepath.Join(dir, "list"), []byte(strings.Join(versions, "\n")+"\n"), 0o666))
}
