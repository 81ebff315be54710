package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/plegvet/plegvet/internal/inputfile"
)

// Redirects names, one line each, what makes the go command build a
// checkout's staging module from another copy than the one plegvet
// reads: a go.work (GOWORK, or the nearest above the checkout; GOWORK=off
// has none) whose use or replace puts the module elsewhere. Each line
// ends the run with exit 1: the answer would describe a copy the kubelet
// is not built from. (A vendored copy the go command reads is read:
// Vendored.)
func (t *Tree) Redirects() []string {
	if t.Sums != nil || len(t.Modules) > 0 {
		return nil // a fetched release: its modules are the ones read
	}
	staging, _ := t.StagingModules() // a bad staging module is named where it is read
	if len(staging) == 0 {
		return nil
	}
	return t.workspaceRedirects(staging)
}

// workFile is the go.work the go command uses in the checkout, or "".
func (t *Tree) workFile() string {
	switch w := os.Getenv("GOWORK"); w {
	case "off":
		return ""
	case "":
		for d := t.Dir; ; d = filepath.Dir(d) {
			if st, err := os.Stat(filepath.Join(d, "go.work")); err == nil && !st.IsDir() {
				return filepath.Join(d, "go.work")
			}
			if filepath.Dir(d) == d {
				return ""
			}
		}
	default:
		return w
	}
}

func (t *Tree) workspaceRedirects(staging map[string]string) []string {
	work := t.workFile()
	if work == "" {
		return nil
	}
	data, err := inputfile.Read(work)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v; the go command reads it (set GOWORK=off to build without it)", inputfile.QuoteName(work), inputfile.Cause(err))}
	}
	wf, err := modfile.ParseWork(work, data, nil)
	if err != nil {
		return []string{fmt.Sprintf("%s (set GOWORK=off to build without it)", inputfile.OneLine(err.Error()))}
	}
	name, base := t.Rel(work), filepath.Dir(work)
	local := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(base, filepath.FromSlash(p))
	}
	var out []string
	redirect := func(line int, what, mod, where string) {
		out = append(out, fmt.Sprintf("%s:%d: %s: the go command builds %s from %s, plegvet reads staging/src/%s (set GOWORK=off, or drop the %s)", name, line, what, mod, inputfile.QuoteName(where), mod, strings.Fields(what)[0]))
	}
	for _, u := range wf.Use {
		dir := local(u.Path)
		mod, err := modulePath(filepath.Join(dir, "go.mod"))
		if err != nil {
			continue // the go command refuses the workspace, and says why
		}
		if sdir, ok := staging[mod]; ok && !sameFile(dir, sdir) {
			redirect(u.Syntax.Start.Line, "use "+u.Path, mod, u.Path)
		}
	}
	for _, r := range wf.Replace {
		sdir, ok := staging[r.Old.Path]
		if !ok {
			continue
		}
		where := r.New.Path
		if r.New.Version != "" {
			where += "@" + r.New.Version
		} else if sameFile(local(r.New.Path), sdir) {
			continue
		}
		redirect(r.Syntax.Start.Line, "replace "+r.Old.Path, r.Old.Path, where)
	}
	return out
}

// sameFile is true when a and b name one directory, through symbolic
// links or not.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
