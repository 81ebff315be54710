package tree

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/plegvet/plegvet/internal/load/buildenv"
	"github.com/plegvet/plegvet/internal/load/inputfile"
)

// Copy is the directory the go command builds a checkout's staging
// module from when it is not staging/src/MODULE, and why.
type Copy struct{ Dir, Why string }

// findCopies finds, in a checkout, the staging modules the go command
// builds from another copy: those a go.work (GOWORK, or the nearest
// above the checkout; GOWORK=off has none) uses or replaces with a
// directory, else, in vendor mode, the vendored copies. What it cannot
// follow (a replacement by a module version, a go.work that does not
// parse) is returned in redirects, one line each.
func (t *Tree) findCopies(read modPaths) (copies map[string]Copy, redirects []string) {
	staging, _ := t.stagingModules(read, moduleLine, nil) // a bad staging module is named where it is read
	if len(staging) == 0 {
		return nil, nil
	}
	if work := t.workFile(); work != "" {
		return t.workspaceCopies(work, staging, read)
	}
	return t.vendoredCopies(staging), nil
}

// Redirects name what makes the go command build a staging module from a
// copy plegvet does not read; each ends the run with exit 1, as the
// answer would describe a copy the kubelet is not built from.
func (t *Tree) Redirects() []string {
	if t.copies == nil {
		return nil
	}
	return t.copies().redirects
}

// CopiesRead say, one line each, which staging modules were read from
// another copy than staging/src, and why.
func (t *Tree) CopiesRead() []string {
	var out []string
	copies := t.Copies()
	for _, mod := range slices.Sorted(maps.Keys(copies)) {
		c := copies[mod]
		out = append(out, fmt.Sprintf("%s: %s, %s", mod, t.Rel(c.Dir), c.Why))
	}
	return out
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

func (t *Tree) workspaceCopies(work string, staging map[string]string, read modPaths) (map[string]Copy, []string) {
	data, err := inputfile.Read(work)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v; the go command reads it (GOWORK=off builds without it)", inputfile.QuoteName(work), inputfile.Cause(err))}
	}
	wf, err := modfile.ParseWork(work, data, nil)
	if err != nil {
		return nil, []string{inputfile.OneLine(err.Error()) + " (GOWORK=off builds without it)"}
	}
	name, base := t.Rel(work), filepath.Dir(work)
	local := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(base, filepath.FromSlash(p))
	}
	copies := map[string]Copy{}
	var redirects []string
	for _, u := range wf.Use {
		dir := local(u.Path)
		mod, err := read.of(filepath.Join(dir, "go.mod"), moduleLine)
		if err != nil {
			continue // the go command refuses the workspace, and says why
		}
		if sdir, ok := staging[mod]; ok && !sameFile(dir, sdir) {
			copies[mod] = Copy{dir, fmt.Sprintf("the copy %s:%d uses", name, u.Syntax.Start.Line)}
		}
	}
	// A replacement wins over a use, as for the go command.
	for _, r := range wf.Replace {
		sdir, ok := staging[r.Old.Path]
		switch {
		case !ok:
		case r.New.Version != "":
			redirects = append(redirects, fmt.Sprintf("%s:%d: replace %s => %s %s: the go command builds that version, plegvet reads the checkout's copy (GOWORK=off builds without it)", name, r.Syntax.Start.Line, r.Old.Path, r.New.Path, r.New.Version))
		case !sameFile(local(r.New.Path), sdir):
			copies[r.Old.Path] = Copy{local(r.New.Path), fmt.Sprintf("the copy %s:%d replaces it with", name, r.Syntax.Start.Line)}
		default:
			delete(copies, r.Old.Path)
		}
	}
	return copies, redirects
}

// vendoredCopies finds the staging modules whose vendored copy the go
// command builds instead of staging's: in vendor mode (a
// vendor/modules.txt, no -mod=mod or -mod=readonly in GOFLAGS), each
// module modules.txt lists whose vendor/MODULE is a directory of its own,
// not upstream's link to staging/src/MODULE.
func (t *Tree) vendoredCopies(staging map[string]string) map[string]Copy {
	data, err := inputfile.Read(filepath.Join(t.Dir, "vendor", "modules.txt"))
	if err != nil {
		return nil
	}
	if slices.ContainsFunc(buildenv.Flags(), func(f string) bool {
		f = strings.TrimLeft(f, "-")
		return f == "mod=mod" || f == "mod=readonly"
	}) {
		return nil
	}
	// modules.txt names each module on a "# PATH VERSION [=> ...]" line.
	copies := map[string]Copy{}
	lines := bufio.NewScanner(bytes.NewReader(data))
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) < 2 || f[0] != "#" {
			continue
		}
		v := existingDir(filepath.Join(t.Dir, "vendor", filepath.FromSlash(f[1])))
		if sdir, ok := staging[f[1]]; ok && v != "" && !sameFile(v, sdir) {
			copies[f[1]] = Copy{v, "the vendored copy the go command builds (vendor/modules.txt)"}
		}
	}
	return copies
}

// sameFile is true when a and b name one directory, through symbolic
// links or not.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
