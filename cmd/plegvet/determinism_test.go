package main

import (
	"bytes"
	"path/filepath"
	"testing"
)

// The same input gives byte-identical output, run after run: reports are
// diffed in CI and kept as goldens.
func TestDeterministicOutput(t *testing.T) {
	tree, err := filepath.Abs(filepath.Join("..", "..", "testdata", "src", "k8s.io", "kubernetes"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"report", "-json", "-C", tree},
		{"report", "-C", tree},
		{"gates", "-yaml", "-C", tree},
		{"gates", "-json", "-C", tree},
		{"periods", "-json", "-C", tree},
		{"rpc", "-json", "-C", tree},
	} {
		var first []byte
		for run := range 5 {
			var stdout, stderr bytes.Buffer
			if code := dispatch(args, &stdout, &stderr); code != exitOK {
				t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
			}
			if run == 0 {
				first = stdout.Bytes()
			} else if !bytes.Equal(first, stdout.Bytes()) {
				t.Fatalf("%v: run %d printed something else than run 0", args, run)
			}
		}
	}
}
