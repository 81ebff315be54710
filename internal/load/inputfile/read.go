// Package inputfile reads the files plegvet is given from outside (Go
// source, go.mod, api.proto, captures from a node) so that no input can
// hang it or exhaust its memory: only regular files are opened, and no more
// than MaxSize bytes are read. Its errors are one line that does not name
// the file: callers put the name in front.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxSize caps any one input file (a .go file, go.mod, api.proto, a capture), so
// that a huge or endless file costs at most this much memory. The largest
// .go file of the releases v1.25.16 to v1.37.2 is 4,047,537 bytes
// (pkg/generated/openapi/zz_generated.openapi.go in v1.37.2, growing about
// 0.2 MB a minor), their largest go.mod 38,689 bytes, api.proto 102,158
// bytes (cri-api v0.37.2); the go command caps a module's go.mod at 16 MiB
// too.
const MaxSize = 16 << 20

// Read returns the content of a regular file of at most MaxSize bytes.
// Anything else is refused before it is opened, since opening a FIFO
// blocks and reading a device never ends. The error is one line that does
// not name the file: callers put the name in front. It wraps
// fs.ErrNotExist, ErrNotRegular or ErrTooLarge where one of them is why.
func Read(name string) ([]byte, error) { return ReadLimit(name, MaxSize) }

// ReadLimit is Read with a smaller limit for one kind of input (api.proto).
func ReadLimit(name string, limit int64) ([]byte, error) {
	if limit <= 0 || limit > MaxSize {
		limit = MaxSize
	}
	st, err := regular(name)
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("is %d bytes, over the %s limit for one file%w", st.Size(), sizeWords(limit), quiet{ErrTooLarge})
	}
	// O_NONBLOCK: should the file turn into a FIFO between Stat and open,
	// the open still returns at once, and the Stat below refuses it.
	f, err := os.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot open: %w", Cause(err))
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("cannot stat: %w", Cause(err))
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(name, st.Mode())
	}
	// What is read may differ from the size stated (a growing file, a file
	// in /proc): the limit holds whatever Stat said.
	buf := make([]byte, 0, min(st.Size(), limit)+1)
	r := io.LimitReader(f, limit+1)
	for {
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), int(limit)+1))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read: %w", Cause(err))
		}
	}
	if int64(len(buf)) > limit {
		return nil, fmt.Errorf("grew past the %s limit for one file while read%w", sizeWords(limit), quiet{ErrTooLarge})
	}
	return buf, nil
}

// Regular returns nil for a regular file (or a link to one) and
// otherwise Read's error, without opening the file: for a file another
// program reads (the go command opens a FIFO named *.go and blocks).
func Regular(name string) error {
	_, err := regular(name)
	return err
}

func regular(name string) (fs.FileInfo, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, statError(name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(name, st.Mode())
	}
	return st, nil
}

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (a named pipe, a device, a socket, a directory); ErrTooLarge by the
// error for a file over MaxSize.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("file too large")
)

// quiet wraps a sentinel error without adding its text to the message.
type quiet struct{ err error }

func (q quiet) Error() string { return "" }
func (q quiet) Unwrap() error { return q.err }

// Cause is the error under a *fs.PathError, which names the file: for a
// message that names it itself.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// statError says why Stat failed; for a symbolic link, where it points.
func statError(name string, err error) error {
	if target, lerr := os.Readlink(name); lerr == nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("is a symbolic link to %s, which does not exist%w", QuoteName(target), quiet{fs.ErrNotExist})
		}
		return fmt.Errorf("is a symbolic link to %s, which cannot be read: %w", QuoteName(target), Cause(err))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("does not exist%w", quiet{fs.ErrNotExist})
	}
	return fmt.Errorf("cannot read: %w", Cause(err))
}

// notRegular names what a file is instead of a regular file.
func notRegular(name string, mode fs.FileMode) error {
	kind := "an irregular file"
	switch {
	case mode.IsDir():
		kind = "a directory"
	case mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case mode&fs.ModeCharDevice != 0:
		kind = "a character device"
	case mode&fs.ModeDevice != 0:
		kind = "a block device"
	case mode&fs.ModeSocket != 0:
		kind = "a socket"
	}
	if target, err := os.Readlink(name); err == nil {
		return fmt.Errorf("is a symbolic link to %s, %s; want a regular file%w", QuoteName(target), kind, quiet{ErrNotRegular})
	}
	if mode.IsDir() {
		return fmt.Errorf("is a directory, want a file%w", quiet{ErrNotRegular})
	}
	return fmt.Errorf("is %s, want a regular file%w", kind, quiet{ErrNotRegular})
}

// QuoteName returns a file name as it can be printed on one line: as is,
// or Go-quoted when it holds invalid UTF-8 or a character that does not
// print as itself (a newline, an escape, a line separator).
func QuoteName(name string) string {
	if needsQuote(name) {
		return strconv.Quote(name)
	}
	return name
}

// OneLine escapes the control characters of a message (a parser's message
// may quote a raw string literal, newlines and all), so that it prints as
// one line.
func OneLine(msg string) string {
	if !needsQuote(msg) {
		return msg
	}
	q := strconv.Quote(msg)
	return q[1 : len(q)-1]
}

func needsQuote(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) })
}

// sizeWords says a limit in MiB, or in bytes below one MiB.
func sizeWords(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}
