package lspprotocol

import (
	"bufio"
	"encoding/json"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// filler is an endless run of one byte.
type filler byte

func (f filler) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(f)
	}
	return len(p), nil
}

// allocated is how many bytes read allocates.
func allocated(read func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A didOpen of 288 MB, over the limit, is read without keeping it: what
// comes in its place names its method, document, version and size.
func TestTooLargeNotAllocated(t *testing.T) {
	const text = 288 << 20
	head := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///src/a.go","languageId":"go","version":3,"text":"`
	tail := `"}}}`
	length := len(head) + text + len(tail)
	in := io.MultiReader(strings.NewReader("Content-Length: "+strconv.Itoa(length)+"\r\n\r\n"+head), io.LimitReader(filler('a'), text), strings.NewReader(tail))
	c := &Codec{MaxLength: 32 << 20}
	var msg struct {
		Method string         `json:"method"`
		ID     any            `json:"id"`
		Params TooLargeParams `json:"params"`
	}
	var err error
	n := allocated(func() { err = c.ReadObject(bufio.NewReader(in), &msg) })
	if err != nil {
		t.Fatal(err)
	}
	want := TooLargeParams{Method: "textDocument/didOpen", URI: "file:///src/a.go", Version: 3, Length: int64(length), Limit: 32 << 20}
	if msg.Method != MethodTooLarge || msg.ID != nil || msg.Params != want {
		t.Errorf("read %+v, want the notification %s with %+v", msg, MethodTooLarge, want)
	}
	if n > 4<<20 {
		t.Errorf("reading a %d-byte message allocated %d bytes, want under 4 MiB", length, n)
	}

	// A request keeps its id, for the error that answers it.
	body := `{"jsonrpc":"2.0","id":7,"method":"textDocument/codeAction","params":{"x":"` + strings.Repeat("b", 100) + `"}}`
	c = &Codec{MaxLength: 50}
	if err := c.ReadObject(bufio.NewReader(strings.NewReader("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)), &msg); err != nil {
		t.Fatal(err)
	}
	if id, _ := msg.ID.(json.Number); msg.Method != MethodTooLarge || id.String() != "7" && msg.ID != float64(7) {
		t.Errorf("read %+v, want %s with id 7", msg, MethodTooLarge)
	}
}

// A header claiming 10 GB allocates nothing for it: the stream ends, and
// that is the fault named.
func TestClaimedLengthNotAllocated(t *testing.T) {
	c := &Codec{MaxLength: 32 << 20}
	var err error
	n := allocated(func() {
		err = c.ReadObject(bufio.NewReader(strings.NewReader("Content-Length: 10000000000\r\n\r\n{\"jsonrpc\"")), new(map[string]any))
	})
	if want := "message 1: the stream ends after 10 of the body's 10000000000 bytes (its Content-Length) (LSP base protocol)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if n > 1<<20 {
		t.Errorf("allocated %d bytes, want under 1 MiB", n)
	}
}
