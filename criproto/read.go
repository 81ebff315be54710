package criproto

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/plegvet/plegvet/internal/load/inputfile"
)

// MaxFileSize caps what is read of a proto file, so that a huge or endless
// file costs at most this much. The largest real api.proto, that of
// k8s.io/cri-api v0.37.2, is 102,158 bytes (v0.25.16: 64,225); 1 MiB
// leaves ten times that.
const MaxFileSize = 1 << 20

// ReadFile parses the proto file at path; positions name path as given.
func ReadFile(path string) (*File, error) { return ReadFileNamed(path, path) }

// ReadFileNamed parses the proto file at path, naming it name in positions
// and errors (the path a user would type in a checkout, say). Only a
// regular file of at most MaxFileSize bytes is read: the mode is checked
// before opening, since opening a named pipe blocks until a writer comes
// and a device may never end.
func ReadFileNamed(path, name string) (*File, error) {
	src, err := inputfile.ReadLimit(path, MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file; want the CRI api.proto (k8s.io/cri-api/%s)", name, RelativeToRoot)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return Parse(name, src)
}
