package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/gotooltest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"plegvet": func() { os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	p := testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		// UPDATE_GOLDEN=1 rewrites the want/ files of cmp commands; review
		// the diff before committing it.
		UpdateScripts: os.Getenv("UPDATE_GOLDEN") != "",
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
			return nil
		},
	}
	if err := gotooltest.Setup(&p); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, p)
}
