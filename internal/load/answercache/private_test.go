//go:build unix

package answercache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stored puts an answer and returns the cache, the key and the entry's
// file.
func stored(t *testing.T) (dir, key, name string) {
	t.Helper()
	setProgramID("prog-1")
	dir = t.TempDir()
	key, _ = Key("report", "k8s.io/kubernetes@v1.37.2", "h1:abc")
	if err := Put(dir, key, answer{Verdict: "generic", N: 3}); err != nil {
		t.Fatal(err)
	}
	return dir, key, entry(dir, key)
}

// getSoon is Get, failed if it takes more than a few seconds (a FIFO
// or /dev/zero would hold it).
func getSoon(t *testing.T, dir, key string) bool {
	t.Helper()
	done := make(chan bool, 1)
	go func() {
		var got answer
		done <- Get(dir, key, &got)
	}()
	select {
	case hit := <-done:
		return hit
	case <-time.After(10 * time.Second):
		t.Fatal("Get did not return")
		return false
	}
}

// Entries that decode but say nothing, and entries that are not files:
// misses, at once.
func TestEntriesThatAreNotAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, name string)
	}{
		{"null", func(t *testing.T, name string) { write(t, name, "null") }},
		{"an empty object", func(t *testing.T, name string) { write(t, name, "{}") }},
		{"a bare schema version", func(t *testing.T, name string) { write(t, name, `{"schemaVersion":1}`) }},
		{"the answer without its envelope", func(t *testing.T, name string) { write(t, name, `{"verdict":"generic","n":3}`) }},
		{"a FIFO", func(t *testing.T, name string) {
			os.Remove(name)
			if err := syscall.Mkfifo(name, 0o600); err != nil {
				t.Skip("no FIFO here:", err)
			}
		}},
		{"a link to /dev/zero", func(t *testing.T, name string) { relink(t, "/dev/zero", name) }},
		{"a link to a valid entry", func(t *testing.T, name string) {
			other := filepath.Join(t.TempDir(), "entry.json")
			data, _ := os.ReadFile(name)
			write(t, other, string(data))
			relink(t, other, name)
		}},
		{"over the size limit", func(t *testing.T, name string) {
			if err := os.Truncate(name, MaxEntrySize+1); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, key, name := stored(t)
			tc.plant(t, name)
			if getSoon(t, dir, key) {
				t.Error("read as an answer")
			}
		})
	}
}

// An entry edited, or moved under another key, is a miss: the digest
// binds the answer to its key.
func TestPlantedEntries(t *testing.T) {
	dir, key, name := stored(t)
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.Replace(string(data), `"generic"`, `"PLANTED"`, 1)
	if planted == string(data) {
		t.Fatalf("the entry does not hold the answer as JSON: %s", data)
	}
	write(t, name, planted)
	if getSoon(t, dir, key) {
		t.Error("an edited entry was read as an answer")
	}
	// A valid entry of another question, copied under this key.
	other, _ := Key("report", "k8s.io/kubernetes@v1.36.1", "h1:def")
	if err := Put(dir, other, answer{Verdict: "evented", N: 300}); err != nil {
		t.Fatal(err)
	}
	moved, _ := os.ReadFile(entry(dir, other))
	write(t, name, string(moved))
	if getSoon(t, dir, key) {
		t.Error("another key's entry was read as this key's answer")
	}
	var e envelope
	if err := json.Unmarshal(moved, &e); err != nil || e.Key != other {
		t.Errorf("an entry names its key: %s", moved)
	}
}

// A permissive umask leaves the cache private; an entry others may
// write, or in a directory they may write, or of another user, is a miss.
func TestCacheIsPrivate(t *testing.T) {
	old := syscall.Umask(0)
	dir, key, name := stored(t)
	syscall.Umask(old)
	for _, d := range []string{filepath.Dir(name), name} {
		st, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v under umask 0; want no access for others", d, perm)
		}
	}
	if !getSoon(t, dir, key) {
		t.Fatal("a private entry was not read")
	}
	os.Chmod(name, 0o666)
	if getSoon(t, dir, key) {
		t.Error("an entry others may write was read")
	}
	os.Chmod(name, 0o600)
	os.Chmod(filepath.Dir(name), 0o777)
	if getSoon(t, dir, key) {
		t.Error("an entry in a directory others may write was read")
	}
	// Put makes the fan-out directory private again.
	if err := Put(dir, key, answer{Verdict: "generic", N: 3}); err != nil {
		t.Fatal(err)
	}
	if !getSoon(t, dir, key) {
		t.Error("Put did not make the directory private again")
	}
	if os.Geteuid() == 0 {
		const nobody = 65534
		if err := os.Chown(name, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		if getSoon(t, dir, key) {
			t.Error("another user's entry was read")
		}
	}
}

// FuzzGet: whatever an entry holds, Get returns (no panic, no hang), and
// reads an answer only from an entry Put wrote for the key.
func FuzzGet(f *testing.F) {
	setProgramID("prog-1")
	key, _ := Key("report")
	seedDir := f.TempDir()
	if err := Put(seedDir, key, answer{Verdict: "generic", N: 3}); err != nil {
		f.Fatal(err)
	}
	valid, _ := os.ReadFile(entry(seedDir, key))
	f.Add(valid)
	f.Add([]byte("null"))
	f.Add([]byte(`{"key":"x","sha256":"00","answer":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		name := entry(dir, key)
		os.MkdirAll(filepath.Dir(name), 0o700)
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var got answer
		if Get(dir, key, &got) && got != (answer{Verdict: "generic", N: 3}) {
			t.Fatalf("entry %q read as %+v", data, got)
		}
	})
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func relink(t *testing.T, target, name string) {
	t.Helper()
	os.Remove(name)
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}
