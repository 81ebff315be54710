package release

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
)

// tempDir is the directory for temporary files (os.TempDir: TMPDIR, else
// /tmp, on unix), checked: one that is not a directory is named with the
// variable that chose it, where os.MkdirTemp would say only "stat DIR".
func tempDir() (string, error) {
	dir := os.TempDir()
	info, err := os.Stat(dir)
	switch {
	case err == nil && info.IsDir():
		return dir, nil
	case err == nil:
		err = errors.New("not a directory")
	case errors.Is(err, fs.ErrNotExist):
		err = errors.New("no such directory")
	}
	name := fmt.Sprintf("the temporary directory %s", dir)
	if v := os.Getenv("TMPDIR"); v != "" && runtime.GOOS != "windows" {
		name = fmt.Sprintf("TMPDIR=%q", v)
	}
	return "", fmt.Errorf("%s: %w; want a directory for temporary files (TMPDIR unset is /tmp)", name, err)
}
