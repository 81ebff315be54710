package runtimeread

import (
	"github.com/plegvet/plegvet/runtimestream"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// extract writes a txtar fixture's files under a new directory.
func extract(t testing.TB, file string) (dir string, comment string) {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fsys, err := txtar.FS(ar)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	return dir, string(ar.Comment)
}

// directive is the rest of the comment line that starts with key.
func directive(comment, key string) (string, bool) {
	for _, line := range strings.Split(comment, "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// TestShapes reads each look-alike module of testdata/shapes and checks
// the verdict, the shape and the position its comment wants ("want:
// VERDICT [SHAPE FILE:LINE]"), the links on the way ("via: FILE:LINE...")
// and, with several servers, each ("servers: FILE:LINE SHAPE, ...").
func TestShapes(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "shapes", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			dir, comment := extract(t, file)
			want, ok := directive(comment, "want")
			if !ok {
				t.Fatal("the fixture says nothing it wants")
			}
			res, err := Read(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Problems) > 0 {
				t.Errorf("problems: %v", res.Problems)
			}
			fields := strings.Fields(want)
			got := "null"
			if res.Streams != nil {
				got = fmt.Sprint(*res.Streams)
			}
			if got != fields[0] {
				t.Errorf("verdict %s, want %s; why: %s", got, fields[0], res.Why)
			}
			if res.Why == "" {
				t.Error("no why")
			}
			if len(fields) == 3 {
				d := res.Decides()
				if d == nil {
					t.Fatalf("no server; why: %s", res.Why)
				}
				if string(d.Shape) != fields[1] {
					t.Errorf("shape %s, want %s (%s)", d.Shape, fields[1], d.Why)
				}
				if p := fmt.Sprintf("%s:%d", d.Pos.File, d.Pos.Line); p != fields[2] {
					t.Errorf("decided at %s, want %s", p, fields[2])
				}
				if !strings.HasPrefix(d.Why, d.Method+" ") && d.Shape != runtimestream.Inherited && d.Shape != runtimestream.Missing {
					t.Errorf("why %q does not start with the method %s", d.Why, d.Method)
				}
			}
			if via, ok := directive(comment, "via"); ok {
				d := res.Decides()
				var steps []string
				for _, s := range d.Via {
					steps = append(steps, fmt.Sprintf("%s:%d", s.Pos.File, s.Pos.Line))
				}
				for _, w := range strings.Fields(via) {
					if !contains(steps, w) {
						t.Errorf("no step at %s; steps %v", w, d.Via)
					}
				}
			}
			if servers, ok := directive(comment, "servers"); ok {
				var got []string
				for _, s := range res.Servers {
					got = append(got, fmt.Sprintf("%s:%d %s", s.Pos.File, s.Pos.Line, s.Shape))
				}
				if g := strings.Join(got, ", "); g != servers {
					t.Errorf("servers %s, want %s", g, servers)
				}
			}
			if t.Failed() {
				for _, s := range res.Servers {
					t.Logf("server %s at %s:%d: %s (%s); via %v", s.Method, s.Pos.File, s.Pos.Line, s.Shape, s.Why, s.Via)
				}
			}
		})
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
