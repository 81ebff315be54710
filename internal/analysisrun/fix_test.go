package analysisrun

import (
	"bytes"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
)

const fixSrc = `package p

import (
	"strings"

	"example.com/v1"
)

var A = strings.ToUpper("a")

var B = v1.X
`

// fixEdit replaces the first occurrence of old in fixSrc with new (with
// insert, inserts new before it).
type fixEdit struct {
	old, new string
	insert   bool
}

// fixDiag is a diagnostic at its first edit, whose (first) fix makes the
// edits; analyzer "a" unless said.
type fixDiag struct {
	analyzer string
	edits    []fixEdit
}

// fixAction writes src to DIR/f.go and returns an action with the
// diagnostics, and the file's name.
func fixAction(t *testing.T, src string, diags []fixDiag) (acts []FixAction, name string) {
	t.Helper()
	name = filepath.Join(t.TempDir(), "f.go")
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	file := fset.File(f.FileStart)
	for _, d := range diags {
		var edits []analysis.TextEdit
		for _, e := range d.edits {
			start := strings.Index(src, e.old)
			if start < 0 {
				t.Fatalf("no %q in the fixture", e.old)
			}
			end := start + len(e.old)
			if e.insert {
				end = start
			}
			edits = append(edits, analysis.TextEdit{Pos: file.Pos(start), End: file.Pos(end), NewText: []byte(e.new)})
		}
		analyzer := d.analyzer
		if analyzer == "" {
			analyzer = "a"
		}
		// One action per diagnostic: fixes from several analyzers.
		acts = append(acts, FixAction{
			Analyzer: analyzer,
			FileSet:  fset,
			Diagnostics: []analysis.Diagnostic{{
				Pos:            edits[0].Pos,
				Message:        "m",
				SuggestedFixes: []analysis.SuggestedFix{{Message: "fix", TextEdits: edits}},
			}},
		})
	}
	return acts, name
}

func TestApplyFixes(t *testing.T) {
	for _, tc := range []struct {
		name        string
		diags       []fixDiag
		want        string // the file written
		applied     []bool // per diagnostic
		skipped     []string
		unformatted bool
	}{{
		name:    "one fix, then gofmt",
		diags:   []fixDiag{{edits: []fixEdit{{old: "v1.X", new: "v1.X  +  1"}}}},
		want:    strings.Replace(fixSrc, "v1.X", "v1.X + 1", 1),
		applied: []bool{true},
	}, {
		name: "two fixes in one file",
		diags: []fixDiag{
			{edits: []fixEdit{{old: `"a"`, new: `"b"`}}},
			{analyzer: "b", edits: []fixEdit{{old: "v1.X", new: "v1.Y"}}},
		},
		want:    strings.NewReplacer(`"a"`, `"b"`, "v1.X", "v1.Y").Replace(fixSrc),
		applied: []bool{true, true},
	}, {
		name: "two fixes reported out of order",
		diags: []fixDiag{
			{edits: []fixEdit{{old: "v1.X", new: "v1.Y"}}},
			{edits: []fixEdit{{old: `"a"`, new: `"b"`}}},
		},
		want:    strings.NewReplacer(`"a"`, `"b"`, "v1.X", "v1.Y").Replace(fixSrc),
		applied: []bool{true, true},
	}, {
		name: "the same edit from two diagnostics counts once",
		diags: []fixDiag{
			{edits: []fixEdit{{old: `"a"`, new: `"b"`}}},
			{analyzer: "b", edits: []fixEdit{{old: `"a"`, new: `"b"`}}},
		},
		want:    strings.Replace(fixSrc, `"a"`, `"b"`, 1),
		applied: []bool{true, true},
	}, {
		name: "a fix sharing one edit and adding another",
		diags: []fixDiag{
			{edits: []fixEdit{{old: `"a"`, new: `"b"`}}},
			{edits: []fixEdit{{old: `"a"`, new: `"b"`}, {old: "v1.X", new: "v1.Y"}}},
		},
		want:    strings.NewReplacer(`"a"`, `"b"`, "v1.X", "v1.Y").Replace(fixSrc),
		applied: []bool{true, true},
	}, {
		name: "overlapping fixes: the second is skipped",
		diags: []fixDiag{
			{edits: []fixEdit{{old: `ToUpper("a")`, new: `ToLower("a")`}}},
			{analyzer: "b", edits: []fixEdit{{old: `"a"`, new: `"b"`}, {old: "v1.X", new: "v1.Y"}}},
		},
		want:    strings.Replace(fixSrc, "ToUpper", "ToLower", 1), // v1.X too stays: a fix is all or nothing
		applied: []bool{true, false},
		skipped: []string{"f.go:9:25: fix of b skipped: its edits conflict with another fix"},
	}, {
		name: "overlapping fixes: the first by position wins, whatever the report order",
		diags: []fixDiag{
			{analyzer: "b", edits: []fixEdit{{old: `"a"`, new: `"b"`}}},
			{edits: []fixEdit{{old: `ToUpper("a")`, new: `ToLower("a")`}}},
		},
		want:    strings.Replace(fixSrc, "ToUpper", "ToLower", 1),
		applied: []bool{false, true},
		skipped: []string{"f.go:9:25: fix of b skipped: its edits conflict with another fix"},
	}, {
		name: "two insertions at one offset conflict",
		diags: []fixDiag{
			{edits: []fixEdit{{old: "v1.X", new: "-", insert: true}}},
			{edits: []fixEdit{{old: "v1.X", new: "+", insert: true}}},
		},
		want:    strings.Replace(fixSrc, "v1.X", "-v1.X", 1),
		applied: []bool{true, false},
		skipped: []string{"f.go:11:9: fix of a skipped: its edits conflict with another fix"},
	}, {
		// The import of strings is left unused: fixes do not remove
		// imports (plegvet's never remove a use).
		name: "adjacent edits both apply; imports stay",
		diags: []fixDiag{
			{edits: []fixEdit{{old: "strings.", new: ""}}},
			{edits: []fixEdit{{old: "ToUpper", new: "toUpper"}}},
		},
		want:    strings.Replace(fixSrc, "strings.ToUpper", "toUpper", 1),
		applied: []bool{true, true},
	}, {
		name: "a result that does not gofmt is kept unformatted",
		diags: []fixDiag{
			{edits: []fixEdit{{old: `"a"`, new: `"a"+`}}},
			{edits: []fixEdit{{old: "v1.X", new: "v1.X  +  1"}}},
		},
		want:        strings.NewReplacer(`"a"`, `"a"+`, "v1.X", "v1.X  +  1").Replace(fixSrc),
		applied:     []bool{true, true},
		unformatted: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			acts, name := fixAction(t, fixSrc, tc.diags)
			res, err := ApplyFixes(acts, FixOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(name)
			if string(got) != tc.want {
				t.Errorf("fixed file:\n%s\nwant:\n%s", got, tc.want)
			}
			for i, want := range tc.applied {
				if fix := &acts[i].Diagnostics[0].SuggestedFixes[0]; res.Applied[fix] != want {
					t.Errorf("fix %d applied: %v, want %v", i, res.Applied[fix], want)
				}
			}
			var skipped []string
			for _, s := range res.Skipped {
				skipped = append(skipped, strings.TrimPrefix(s.String(), filepath.Dir(name)+string(filepath.Separator)))
			}
			if strings.Join(skipped, "\n") != strings.Join(tc.skipped, "\n") {
				t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(skipped, "\n"), strings.Join(tc.skipped, "\n"))
			}
			if (len(res.Unformatted) > 0) != tc.unformatted {
				t.Errorf("unformatted: %v, want %v", res.Unformatted, tc.unformatted)
			}
			if res.Fixes != len(tc.diags) || len(res.Files) != 1 || res.Files[0] != name {
				t.Errorf("%d fixes, files %q; want %d and %q", res.Fixes, res.Files, len(tc.diags), name)
			}
		})
	}
}

func TestApplyFixesDiff(t *testing.T) {
	acts, name := fixAction(t, fixSrc, []fixDiag{{edits: []fixEdit{{old: `"a"`, new: `"b"`}}}})
	var out bytes.Buffer
	res, err := ApplyFixes(acts, FixOptions{Diff: &out, DiffDir: filepath.Dir(name)})
	if err != nil || len(res.Applied) != 1 {
		t.Fatalf("applied %d, err %v", len(res.Applied), err)
	}
	want := "diff a/f.go b/f.go\n--- a/f.go\n+++ b/f.go\n@@ -6,6 +6,6 @@\n" +
		" \t\"example.com/v1\"\n )\n \n-var A = strings.ToUpper(\"a\")\n+var A = strings.ToUpper(\"b\")\n \n var B = v1.X\n"
	if out.String() != want {
		t.Errorf("diff:\n%s\nwant:\n%s", out.String(), want)
	}
	if got, _ := os.ReadFile(name); string(got) != fixSrc {
		t.Errorf("-diff wrote the file:\n%s", got)
	}

	// Outside DiffDir, the file's own name.
	out.Reset()
	if _, err := ApplyFixes(acts, FixOptions{Diff: &out, DiffDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if n := filepath.ToSlash(name); !strings.HasPrefix(out.String(), "diff a/"+n+" b/"+n+"\n") {
		t.Errorf("diff outside DiffDir:\n%s", out.String())
	}
}

func TestApplyFixesFileChanged(t *testing.T) {
	// The file changed since it was analysed: nothing is written.
	acts, name := fixAction(t, fixSrc, []fixDiag{{edits: []fixEdit{{old: `"a"`, new: `"b"`}}}})
	changed := fixSrc + "// more\n"
	if err := os.WriteFile(name, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ApplyFixes(acts, FixOptions{})
	if err == nil || !strings.Contains(err.Error(), "has changed since it was analysed") {
		t.Errorf("err = %v", err)
	}
	if got, _ := os.ReadFile(name); string(got) != changed {
		t.Errorf("the file was written:\n%s", got)
	}
}

func TestApplyFixesWriteError(t *testing.T) {
	acts, _ := fixAction(t, fixSrc, []fixDiag{{edits: []fixEdit{{old: `"a"`, new: `"b"`}}}})
	res, err := ApplyFixes(acts, FixOptions{WriteFile: func(string, []byte) error { return errors.New("disk full") }})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v", err)
	}
	if len(res.Applied) != 0 {
		t.Errorf("applied %d fixes to a file not written", len(res.Applied))
	}
}
