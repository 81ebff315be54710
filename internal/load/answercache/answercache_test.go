package answercache

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

type answer struct {
	Verdict string `json:"verdict"`
	N       int    `json:"n"`
}

func TestRoundTripAndMisses(t *testing.T) {
	setProgramID("prog-1")
	dir := t.TempDir()
	key, ok := Key("report", "k8s.io/kubernetes@v1.36.1", "h1:abc")
	if !ok {
		t.Fatal("no key with a program ID")
	}
	var got answer
	if Get(dir, key, &got) {
		t.Fatal("a hit in an empty cache")
	}
	want := answer{Verdict: "generic", N: 3}
	if err := Put(dir, key, want); err != nil {
		t.Fatal(err)
	}
	if !Get(dir, key, &got) || got != want {
		t.Fatalf("got %+v (hit %v), want %+v", got, Get(dir, key, &got), want)
	}

	// The parts are length-prefixed, and each counts.
	for _, parts := range [][]string{
		{"report", "k8s.io/kubernetes@v1.36.1", "h1:abd"},
		{"repor", "tk8s.io/kubernetes@v1.36.1", "h1:abc"},
		{"report", "k8s.io/kubernetes@v1.36.1"},
	} {
		if k, _ := Key(parts...); k == key {
			t.Errorf("%q keys as %q", parts, []string{"report", "k8s.io/kubernetes@v1.36.1", "h1:abc"})
		}
	}
	// Another program: another key.
	setProgramID("prog-2")
	if k, _ := Key("report", "k8s.io/kubernetes@v1.36.1", "h1:abc"); k == key {
		t.Error("a rebuilt program reads the old program's answers")
	}
	setProgramID("")
	if _, ok := Key("x"); ok {
		t.Error("a key without a program ID")
	}
	setProgramID("prog-1")

	// Corrupt, cut, of another schema, or followed by more: misses.
	name := entry(dir, key)
	for _, bad := range []string{"", "{", `{"verdict":"generic","n":3,"extra":1}`, `{"verdict":"generic"} {}`, "\x00\x01"} {
		if err := os.WriteFile(name, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if Get(dir, key, &got) {
			t.Errorf("entry %q read as an answer", bad)
		}
	}
	// And Put rewrites it.
	if err := Put(dir, key, want); err != nil || !Get(dir, key, &got) || got != want {
		t.Fatalf("rewritten entry: %+v, %v", got, err)
	}
	// No directory: no cache, no error.
	if Get("", key, &got) || Put("", key, want) != nil {
		t.Error("an empty directory caches")
	}
	// A directory that cannot be made: an error for Put, a miss for Get.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if err := Put(file, key, want); err == nil {
		t.Error("Put under a file succeeded")
	}
	if Get(file, key, &got) {
		t.Error("Get under a file hit")
	}
}

func TestDir(t *testing.T) {
	t.Setenv(Env, "off")
	if _, ok := Dir(); ok {
		t.Error("PLEGVET_CACHE=off keeps a cache")
	}
	t.Setenv(Env, "/some/dir")
	if d, ok := Dir(); !ok || d != "/some/dir" {
		t.Errorf("Dir() = %q, %v", d, ok)
	}
}

func TestParseNote(t *testing.T) {
	note := func(namesz, descsz, typ uint32, name, desc string) []byte {
		b := make([]byte, 12)
		binary.LittleEndian.PutUint32(b[0:], namesz)
		binary.LittleEndian.PutUint32(b[4:], descsz)
		binary.LittleEndian.PutUint32(b[8:], typ)
		return append(append(b, name...), desc...)
	}
	for _, tc := range []struct {
		data []byte
		want string
		ok   bool
	}{
		{note(4, 5, 4, "Go\x00\x00", "ab/cd"), "ab/cd", true},
		{note(4, 9, 4, "Go\x00\x00", "ab/cd"), "", false}, // cut
		{note(4, 5, 3, "Go\x00\x00", "ab/cd"), "", false}, // another type
		{note(4, 5, 4, "GNU\x00", "ab/cd"), "", false},    // another owner
		{note(4, 0, 4, "Go\x00\x00", ""), "", false},
		{[]byte{1, 2}, "", false},
	} {
		got, ok := parseNote(tc.data, binary.LittleEndian)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseNote(%q) = %q, %v; want %q, %v", tc.data, got, ok, tc.want, tc.ok)
		}
	}
}

// The test binary is an ELF file the go command built: it has a build ID.
func TestProgramIDOfThisBinary(t *testing.T) {
	id, ok := readProgramID()
	if !ok || len(id) < 20 {
		if runtime.GOOS == "linux" {
			t.Fatalf("no Go build ID note in %s: %q", os.Args[0], id)
		}
		t.Skipf("no Go build ID note in %s (not ELF?): %q", os.Args[0], id)
	}
}

func FuzzParseNote(f *testing.F) {
	f.Add([]byte("\x04\x00\x00\x00\x05\x00\x00\x00\x04\x00\x00\x00Go\x00\x00ab/cd"))
	f.Fuzz(func(t *testing.T, data []byte) {
		id, ok := parseNote(data, binary.LittleEndian)
		if ok && (id == "" || len(id) > len(data)) {
			t.Fatalf("parseNote(%q) = %q", data, id)
		}
	})
}

// setProgramID replaces the build ID for the rest of the test binary's
// run; "" turns keys off.
func setProgramID(id string) {
	programID = func() (string, bool) { return id, id != "" }
}
