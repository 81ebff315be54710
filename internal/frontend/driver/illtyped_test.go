package driver

import (
	"context"
	"fmt"
	"go/ast"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/internal/load/workcount"
)

// synthetic writes a module example.com/m whose package p has files
// files, each selecting perFile names that the model of time (srcload's,
// a part of its API) does not declare: every selection a type error at
// the selected name, which illTyped must not take for p's (a stub, which
// go/types checks against a fake package, makes none), and
// loads p as the lean loader does. It returns the load, the syntax nodes
// of p's files, and the work the load did.
func synthetic(t *testing.T, files, perFile int, extra map[string]string) (*engine.Loaded, int, workcount.Counts) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, src string) { writeFile(t, dir, name, src) }
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	for i := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "package p\n\nimport \"time\"\n\nfunc f%d() {\n", i)
		for j := range perFile {
			fmt.Fprintf(&b, "\t_ = time.Name%d_%d(%d, \"x\", []int{1, 2, 3})\n", i, j, j)
		}
		b.WriteString("}\n")
		write(fmt.Sprintf("p/f%03d.go", i), b.String())
	}
	for name, src := range extra {
		write(name, src)
	}
	tr, err := tree.OpenModule(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := workcount.Read()
	res, err := engine.Load(context.Background(), engine.Request{Tree: tr, Paths: []string{"example.com/m/p"}})
	if err != nil {
		t.Fatal(err)
	}
	work := workcount.Read().Since(before)
	nodes := 0
	for _, f := range res.Packages[0].Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			nodes++
			return true
		})
	}
	return res, nodes, work
}

// The look-up of the type errors' positions in the syntax (illTyped) is
// one walk of the files, whatever the number of type errors: the nodes it
// visits grow with the package, not with the package times its errors.
// A lean load of pkg/ had thousands of type errors from stubbed packages
// (and has some from the models); one walk of a file per error made
// plegvet ./pkg/... 5x the go command's listing (issue 43). Work is
// counted, not timed.
func TestIllTypedWalksOnce(t *testing.T) {
	type size struct{ files, perFile int }
	var walked []int64
	for _, sz := range []size{{4, 25}, {8, 50}, {16, 100}} {
		res, nodes, load := synthetic(t, sz.files, sz.perFile, nil)
		p := res.Packages[0]
		if got, want := len(p.TypeErrors), sz.files*sz.perFile; got != want {
			t.Fatalf("%d files x %d selections time's model lacks: %d type errors, want %d", sz.files, sz.perFile, got, want)
		}
		// The load parsed each file once and checked one package.
		if load.FilesParsed != int64(sz.files) || load.PackagesChecked != 1 {
			t.Errorf("%d files: the load parsed %d files and type-checked %d packages, want %d and 1", sz.files, load.FilesParsed, load.PackagesChecked, sz.files)
		}
		before := workcount.Read()
		if why := illTyped(res); why != "" {
			t.Fatalf("illTyped = %q, want \"\" (every error is the model's)", why)
		}
		w := workcount.Read().Since(before)
		if w.FilesParsed != 0 || w.PackagesChecked != 0 {
			t.Errorf("illTyped parsed %d files and type-checked %d packages, want none", w.FilesParsed, w.PackagesChecked)
		}
		if w.NodesWalked > int64(nodes) {
			t.Errorf("%d files, %d type errors: illTyped visited %d syntax nodes, more than the package's %d (a walk per error?)", sz.files, len(p.TypeErrors), w.NodesWalked, nodes)
		}
		walked = append(walked, w.NodesWalked)
	}
	// Each size has 2x the files and 2x the errors of a file: 4x the
	// nodes and 4x the errors. Linear work is 4x; a walk of the file per
	// error is 8x (16x were every file walked per error).
	for i := 1; i < len(walked); i++ {
		if walked[i] > 5*walked[i-1] {
			t.Errorf("nodes visited grew %d -> %d (%.1fx) for 4x the syntax and 4x the errors; want linear growth (4x)", walked[i-1], walked[i], float64(walked[i])/float64(walked[i-1]))
		}
	}
}

// illTyped still names the first matched package using a name that a
// package read from source does not declare, with that error; a stub's
// gaps are not its errors.
func TestIllTypedNamesUndeclared(t *testing.T) {
	res, _, _ := synthetic(t, 2, 3, map[string]string{
		"p/q.go": "package p\n\nimport \"example.com/m/q\"\n\nvar _ = q.Declared\nvar _ = q.EventPLEG\nvar _ = q.Other\n",
		"q/q.go": "package q\n\nconst Declared = 1\n",
	})
	// q is not requested: read from source only when picked.
	if got := illTyped(res); got != "" {
		t.Errorf("q stubbed: illTyped = %q, want \"\"", got)
	}
	dir := filepath.Dir(filepath.Dir(res.Fset.Position(res.Packages[0].Syntax[0].Pos()).Filename))
	tr, err := tree.OpenModule(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err = engine.Load(context.Background(), engine.Request{Tree: tr, Paths: []string{"example.com/m/p"}, FromSource: func(p string) bool { return p == "example.com/m/q" }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := illTyped(res), "example.com/m/p does not type-check (undefined: q.EventPLEG)"; got != want {
		t.Errorf("illTyped = %q, want %q", got, want)
	}
}
