package tree

import (
	"bufio"
	"bytes"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/buildenv"
	"github.com/plegvet/plegvet/internal/inputfile"
)

// vendored finds the staging modules whose vendored copy the go command
// builds instead of staging's: in vendor mode (a vendor/modules.txt, no
// workspace, no -mod=mod or -mod=readonly in GOFLAGS), each module
// modules.txt lists whose vendor/MODULE is a directory of its own, not
// upstream's link to staging/src/MODULE.
func (t *Tree) vendored() map[string]string {
	data, err := inputfile.Read(filepath.Join(t.Dir, "vendor", "modules.txt"))
	if err != nil || t.workFile() != "" {
		return nil
	}
	if slices.ContainsFunc(buildenv.Flags(), func(f string) bool {
		f = strings.TrimLeft(f, "-")
		return f == "mod=mod" || f == "mod=readonly"
	}) {
		return nil
	}
	staging, _ := t.StagingModules()
	// modules.txt names each module on a "# PATH VERSION [=> ...]" line.
	found := map[string]string{}
	lines := bufio.NewScanner(bytes.NewReader(data))
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) < 2 || f[0] != "#" {
			continue
		}
		mod := f[1]
		v := existingDir(filepath.Join(t.Dir, "vendor", filepath.FromSlash(mod)))
		if sdir, ok := staging[mod]; ok && v != "" && !sameFile(v, sdir) {
			found[mod] = v
		}
	}
	return found
}

// Copies say, one line each, which staging modules were read from
// another copy than staging/src: a vendored one the go command builds.
func (t *Tree) Copies() []string {
	var out []string
	for _, mod := range slices.Sorted(maps.Keys(t.Vendored)) {
		out = append(out, mod+": "+t.Rel(t.Vendored[mod])+", the vendored copy the go command builds (vendor/modules.txt)")
	}
	return out
}
