// Package answercache keeps plegvet's answers for released Kubernetes
// source, which never changes: a module version's content is fixed by its
// go.sum hash. An answer is stored under a key made of everything it
// depends on — the program that computed it (its Go build ID: a rebuilt
// plegvet is another program), the modules' hashes, the question — so a
// stored answer is one the program would compute again, and reading it
// costs what reading a file costs.
//
// Nothing of a checkout is cached: its files change under the same names.
//
// The library caches only where its caller names a directory; the command
// line's is Dir(): PLEGVET_CACHE, or plegvet under the user's cache
// directory, beside the go command's; PLEGVET_CACHE=off turns it off. A
// missing, unreadable or corrupt entry is a miss, never an
// error: the answer is computed again and the entry rewritten. The cache
// is private (Get, Put).
package answercache

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// Env is the environment variable naming the cache directory, or "off".
const Env = "PLEGVET_CACHE"

// Dir returns the cache directory, and false when the cache is off or
// there is no place for it.
func Dir() (string, bool) {
	switch v := os.Getenv(Env); v {
	case "off":
		return "", false
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", false
		}
		return filepath.Join(base, "plegvet"), true
	default:
		return v, true
	}
}

// Key hashes the parts of a question, with the running program's build
// ID. It reports false when the program has no build ID to key on (a
// binary not built by the go command for ELF): nothing is cached then.
func Key(parts ...string) (string, bool) {
	id, ok := programID()
	if !ok {
		return "", false
	}
	h := sha256.New()
	for _, p := range append([]string{id}, parts...) {
		// Length-prefixed: ("ab", "c") and ("a", "bc") differ.
		fmt.Fprintf(h, "%d:%s\n", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Get decodes the entry of key in dir into v, strictly (an unknown field
// is a miss: another schema). It reports whether it did.
//
// An entry is read as any input is: a regular file (not a link, a FIFO or
// a device), at most MaxEntrySize bytes. It is read only when it is the
// user's own and neither it nor its directory is writable by others, and
// only when its digest binds its content to key: an entry edited, or
// copied under another key, is a miss, as is one in a directory others
// may write.
func Get(dir, key string, v any) bool {
	if dir == "" || key == "" {
		return false
	}
	name := entry(dir, key)
	if !private(filepath.Dir(name)) {
		return false
	}
	data, ok := readEntry(name)
	var e envelope
	return ok && decodeStrict(data, &e) && e.Key == key && e.Digest == digest(key, e.Answer) && decodeStrict(e.Answer, v)
}

// decodeStrict decodes data, one JSON value of v's fields only, into v.
func decodeStrict(data []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v) == nil && !dec.More()
}

// MaxEntrySize bounds an entry: the largest answer (every gate of a
// release, with positions) is under a megabyte.
const MaxEntrySize = 64 << 20

// envelope is an entry as stored: the answer, the key it answers and a
// digest of both.
type envelope struct {
	Key    string          `json:"key"`
	Digest string          `json:"sha256"`
	Answer json.RawMessage `json:"answer"`
}

// digest binds an answer to its key.
func digest(key string, answer []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "plegvet answer\n%s\n", key)
	h.Write(answer)
	return hex.EncodeToString(h.Sum(nil))
}

// readEntry reads a private regular file of at most MaxEntrySize bytes,
// without following a link and without blocking on a FIFO.
func readEntry(name string) ([]byte, bool) {
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() || st.Size() > MaxEntrySize || !ownedPrivately(st) {
		return nil, false
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	// The file opened is the one looked at: not replaced in between.
	if fst, err := f.Stat(); err != nil || !os.SameFile(st, fst) {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxEntrySize+1))
	if err != nil || len(data) > MaxEntrySize {
		return nil, false
	}
	return data, true
}

// private reports whether a directory is the user's own and writable by
// no one else.
func private(dir string) bool {
	st, err := os.Lstat(dir)
	return err == nil && st.IsDir() && ownedPrivately(st)
}

// Put stores v under key in dir. A cache that cannot be written is no
// error of the answer's: the error is for callers that want to say so.
// The directories it makes are private (0700); a fan-out directory of the
// user's own that others may write (made by an older plegvet under a
// permissive umask) it makes private.
func Put(dir, key string, v any) error {
	if dir == "" || key == "" {
		return nil
	}
	answer, err := json.Marshal(v)
	if err != nil {
		return err
	}
	data, err := json.Marshal(envelope{Key: key, Digest: digest(key, answer), Answer: answer})
	if err != nil {
		return err
	}
	name := entry(dir, key)
	// The cache's own directory is made private when it is made; the
	// fan-out directory, which Get checks, always.
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return err
	}
	if err := makePrivate(filepath.Dir(name)); err != nil {
		return err
	}
	// Written whole, then renamed: a reader never sees half an entry.
	tmp, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", tmp.Name(), cmp.Or(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// entry is where key's entry lives: two-character fan-out, as the go
// command's cache does.
func entry(dir, key string) string {
	return filepath.Join(dir, key[:2], key+".json")
}

// programID is the running executable's Go build ID, read once, and
// whether there is one. The package's own tests replace it (setProgramID
// in answercache_test.go); nothing else assigns it.
var programID = sync.OnceValues(readProgramID)

// readProgramID reads the build ID of the running program: from
// /proc/self/exe, which stays the running file when the file at its path
// is replaced (go install of a new plegvet while an old one runs), and
// only without /proc from the path. An ID the go command did not compute
// from the program's content (-buildid=X, Bazel's "redacted": no
// action/content form) keys nothing. The module versions the program
// was built from are added, so that even a build ID set by hand is not
// all a key rests on.
func readProgramID() (string, bool) {
	f, err := elf.Open("/proc/self/exe")
	if err != nil {
		exe, err := os.Executable()
		if err != nil {
			return "", false
		}
		if f, err = elf.Open(exe); err != nil {
			return "", false
		}
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return "", false
	}
	data, err := sec.Data()
	if err != nil {
		return "", false
	}
	id, ok := parseNote(data, f.ByteOrder)
	if !ok || !strings.Contains(id, "/") {
		return "", false
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		id += "\n" + bi.String()
	}
	return id, true
}

// parseNote reads a Go build ID note: name size, description size, type
// 4, the name "Go\x00\x00", the ID.
func parseNote(data []byte, order binary.ByteOrder) (string, bool) {
	if len(data) < 16 {
		return "", false
	}
	namesz, descsz, typ := order.Uint32(data[0:]), order.Uint32(data[4:]), order.Uint32(data[8:])
	if namesz != 4 || typ != 4 || string(data[12:16]) != "Go\x00\x00" || uint64(len(data)) < 16+uint64(descsz) || descsz == 0 {
		return "", false
	}
	return string(data[16 : 16+descsz]), true
}
