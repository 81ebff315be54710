// Package protofile reads a .proto file from disk for criproto, which
// parses it: the reading half, with the limits outside input needs.
package protofile

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/plegvet/plegvet/criproto"
	"github.com/plegvet/plegvet/internal/load/inputfile"
)

// Read parses the proto file at path; positions name path as given.
func Read(path string) (*criproto.File, error) { return ReadNamed(path, path) }

// ReadNamed parses the proto file at path, naming it name in positions
// and errors (the path a user would type in a checkout, say). Only a
// regular file of at most criproto.MaxFileSize bytes is read: the mode is checked
// before opening, since opening a named pipe blocks until a writer comes
// and a device may never end.
func ReadNamed(path, name string) (*criproto.File, error) {
	src, err := inputfile.ReadLimit(path, criproto.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: no such file; want the CRI api.proto (k8s.io/cri-api/%s)", name, criproto.RelativeToRoot)
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return criproto.Parse(name, src)
}
