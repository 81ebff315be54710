package fleet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// savedCapture is a capture being written to a file; its Write never
// fails, so that a full disk does not cut the read it tees, and Close
// returns the first error. A nil *savedCapture saves nothing.
type savedCapture struct {
	f    *os.File
	name string
	err  error
}

func (s *savedCapture) Write(p []byte) (int, error) {
	if s != nil && s.err == nil {
		_, s.err = s.f.Write(p)
	}
	return len(p), nil
}

func (s *savedCapture) Close() error {
	if s == nil {
		return nil
	}
	if err := s.f.Close(); s.err == nil {
		s.err = err
	}
	if s.err != nil {
		return fmt.Errorf("--save: %s: %v", s.name, s.err)
	}
	return nil
}

// dnsSubdomain is what a node's name is (RFC 1123): a name that is not
// one, from a hostile or broken API server, is never made a path.
var dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// save creates Save/NODE.kind for a node's capture; nil without --save.
func (f *fleet) save(node, kind string) (*savedCapture, error) {
	if f.opts.Save == "" {
		return nil, nil
	}
	if len(node) > 253 || !dnsSubdomain.MatchString(node) {
		return nil, fmt.Errorf("--save: the node's name is not a DNS subdomain name, so it is not made a file name")
	}
	name := filepath.Join(f.opts.Save, node+"."+kind)
	file, err := os.Create(name)
	if err != nil {
		return nil, fmt.Errorf("--save: %v", err)
	}
	return &savedCapture{f: file, name: name}, nil
}

// saveFile writes data to Save/NODE.kind; nothing without --save.
func (f *fleet) saveFile(node, kind string, data []byte) error {
	saved, err := f.save(node, kind)
	if err != nil || saved == nil {
		return err
	}
	saved.Write(data)
	return saved.Close()
}

// unsave removes Save/NODE.kind, a capture this run did not make (a
// metrics body cut short, a file of an earlier run): the directory holds
// either NODE.metrics.txt or NODE.metrics-error.txt, never both.
func (f *fleet) unsave(node, kind string) error {
	if f.opts.Save == "" || len(node) > 253 || !dnsSubdomain.MatchString(node) {
		return nil
	}
	if err := os.Remove(filepath.Join(f.opts.Save, node+"."+kind)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("--save: %v", err)
	}
	return nil
}
