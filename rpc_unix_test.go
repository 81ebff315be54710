//go:build unix

package plegvet

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestEventStreamRPCNotRegular: -proto, or the tree's api.proto, is read
// only if it is a regular file; a named pipe is never opened.
func TestEventStreamRPCNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "api.proto")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "k")
	inTree := filepath.Join(tree, filepath.FromSlash(ProtoPath))
	for _, d := range []string{inTree, filepath.Join(tree, "pkg", "features")} { // a directory where the proto should be
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "go.mod"), []byte("module k8s.io/kubernetes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"-proto a named pipe", Options{Proto: fifo}, filepath.ToSlash(fifo) + ": is a named pipe (FIFO), want a regular file"},
		{"the tree's api.proto a directory", Options{Dir: tree}, ProtoPath + ": is a directory, want a file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := EventStream(context.Background(), tc.opts)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || err.Error() != tc.want {
					t.Errorf("got  %v\nwant %s", err, tc.want)
				}
			case <-time.After(30 * time.Second): // a guard against a hang, not a timing test
				t.Fatal("EventStream did not return")
			}
		})
	}
}
