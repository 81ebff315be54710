//go:build unix

package protofile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plegvet/plegvet/criproto"
)

// TestReadFileRefuses: only a regular file of at most criproto.MaxFileSize bytes is
// read; a named pipe is never opened (opening one blocks until a writer
// comes).
func TestReadFileRefuses(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	if err := syscall.Mkfifo(at("fifo.proto"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(at("fifo.proto"), at("link.proto")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(at("dir.proto"), 0o755); err != nil {
		t.Fatal(err)
	}
	sized := func(name string, size int64) {
		f, err := os.Create(at(name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(strings.Repeat(" ", 16)); err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(size); err != nil { // sparse: no blocks written
			t.Fatal(err)
		}
	}
	sized("huge.proto", 64<<20)
	sized("limit.proto", criproto.MaxFileSize+1)
	sized("fits.proto", criproto.MaxFileSize) // read in full: NUL bytes after the spaces

	tests := []struct{ path, name, want string }{
		{at("fifo.proto"), "fifo.proto", "fifo.proto: is a named pipe (FIFO), want a regular file"},
		{at("link.proto"), "link.proto", "link.proto: is a symbolic link to " + at("fifo.proto") + ", a named pipe (FIFO); want a regular file"},
		{at("dir.proto"), "dir.proto", "dir.proto: is a directory, want a file"},
		{"/dev/null", "/dev/null", "/dev/null: is a character device, want a regular file"},
		{at("huge.proto"), "huge.proto", "huge.proto: is 67108864 bytes, over the 1 MiB limit for one file"},
		{at("limit.proto"), "limit.proto", "limit.proto: is 1048577 bytes, over the 1 MiB limit for one file"},
		{at("fits.proto"), "fits.proto", "fits.proto:1:17: invalid character NUL; want a text .proto file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := ReadNamed(tc.path, tc.name)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || err.Error() != tc.want {
					t.Errorf("got  %v\nwant %s", err, tc.want)
				}
			case <-time.After(30 * time.Second): // a guard against a hang, not a timing test
				t.Fatalf("ReadNamed(%s) did not return", tc.path)
			}
		})
	}
}

// A file that is not there is named with what was wanted.
func TestReadAbsent(t *testing.T) {
	_, err := Read(filepath.Join(t.TempDir(), "absent.proto"))
	if err == nil || !strings.HasSuffix(err.Error(), "absent.proto: no such file; want the CRI api.proto (k8s.io/cri-api/pkg/apis/runtime/v1/api.proto)") {
		t.Errorf("err = %v", err)
	}
}
