package nodeindex

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Read refuses an index go generate would not have written.
func TestReadNodeIndexRefuses(t *testing.T) {
	line := func(r string) string { return `{"release":"` + r + `","nodeSource":{}}` + "\n" }
	for name, data := range map[string]string{
		"not json":     "{\n",
		"no answer":    `{"release":"v1.30.0"}` + "\n",
		"both":         `{"release":"v1.30.0","nodeSource":{},"unserved":"x"}` + "\n",
		"extra field":  `{"release":"v1.30.0","nodeSource":{},"x":1}` + "\n",
		"not upstream": line("v1.30.0-foo.1"),
		"minor":        line("v1.30"),
		"out of order": line("v1.30.1") + line("v1.30.0"),
		"twice":        line("v1.30.0") + line("v1.30.0"),
		"blank line":   line("v1.30.0") + "\n" + line("v1.30.1"),
	} {
		if _, err := Read([]byte(data)); err == nil || !strings.HasPrefix(err.Error(), "nodeindex.jsonl:") {
			t.Errorf("%s: err %v, want one naming the line", name, err)
		}
	}
	if got, err := Read([]byte(line("v1.29.3") + line("v1.30.0-rc.1"))); err != nil || len(got) != 2 {
		t.Errorf("a release and a pre-release: %v, %v; want both", got, err)
	}
	if got, err := Read(nil); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v; want an empty index", got, err)
	}
}

// Read reads a file go generate may be pointed at (-o): whatever
// it holds, an index or one error naming a line, never a panic; what it
// reads, written back, reads the same.
func FuzzReadNodeIndex(f *testing.F) {
	index, err := os.ReadFile(filepath.Join("..", "..", "..", "nodeindex.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(index[:bytes.IndexByte(index, '\n')+1])
	f.Add([]byte(`{"release":"v1.27.14","unserved":"refused"}` + "\n"))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		index, err := Read(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "nodeindex.jsonl:") {
				t.Errorf("error names no line: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, index); err != nil {
			t.Fatal(err)
		}
		again, err := Read(buf.Bytes())
		if err != nil || len(again) != len(index) {
			t.Errorf("written back: %d entries, %v; read %d", len(again), err, len(index))
		}
	})
}
