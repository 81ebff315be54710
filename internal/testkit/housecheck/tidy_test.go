package housecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The tools/ modules require plegvet through a replace of ../..: a
// dependency plegvet gains must reach their go.mod and go.sum too, or
// .ci/run fails in them ("missing go.sum entry") after the root module
// passed. go mod tidy -diff says what tidying would change, and changes
// nothing.
func TestToolsModulesTidy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod tidy in each tools/ module")
	}
	mods, err := filepath.Glob(filepath.Join(moduleRoot, "tools", "*", "go.mod"))
	if err != nil || len(mods) == 0 {
		t.Fatalf("no tools/*/go.mod: %v", err)
	}
	for _, m := range mods {
		dir := filepath.Dir(m)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cmd := exec.Command("go", "mod", "tidy", "-diff")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s is not tidy (run go mod tidy there): %v\n%s", dir, err, out)
			}
		})
	}
}
