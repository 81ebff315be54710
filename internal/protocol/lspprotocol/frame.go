package lspprotocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Codec reads and writes the base protocol's messages: header lines ended
// by CRLF, an empty line, then Content-Length bytes holding one JSON
// object. It is a jsonrpc2.ObjectCodec. A stream that breaks these rules
// is a *FrameError naming the message and what was expected; a body
// longer than MaxLength is not allocated: it is skimmed for its method,
// id and document, discarded, and read as a MethodTooLarge request or
// notification instead.
type Codec struct {
	MaxLength int64
	read      int // messages read, to name the one at fault
}

// MethodTooLarge stands for a message whose body was over the Codec's
// MaxLength; its params are TooLargeParams. ("$/": the protocol leaves
// such methods to the implementation.)
const MethodTooLarge = "$/plegvet/tooLarge"

// TooLargeParams say what a discarded message was, as far as its first
// bytes tell: its method, and the document it names (URI "" and Version
// 0 when it names none, or names it after the skimmed bytes).
type TooLargeParams struct {
	Method  string `json:"method"`
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Length  int64  `json:"length"`
	Limit   int64  `json:"limit"`
}

// FrameError is a fault in the stream: the connection cannot go on.
type FrameError struct {
	Message int // 1 for the first message
	Fault   string
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("message %d: %s (LSP base protocol)", e.Message, e.Fault)
}

func (c *Codec) fault(format string, args ...any) error {
	return &FrameError{Message: c.read, Fault: fmt.Sprintf(format, args...)}
}

func (c *Codec) shortBody(read, length int64) error {
	return c.fault("the stream ends after %d of the body's %d bytes (its Content-Length)", read, length)
}

// WriteObject writes one message.
func (c *Codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// ReadObject reads one message into v; io.EOF at a message's boundary.
func (c *Codec) ReadObject(r *bufio.Reader, v any) error {
	c.read++
	length, err := c.header(r)
	if err != nil {
		return err
	}
	var body []byte
	if length > c.MaxLength {
		if body, err = c.skim(r, length); err != nil {
			return err
		}
	} else {
		body = make([]byte, length)
		if n, err := io.ReadFull(r, body); err != nil {
			return c.shortBody(int64(n), length)
		}
		if err := c.object(body); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return c.fault("the JSON object is not a JSON-RPC message: %s", strings.TrimPrefix(err.Error(), "jsonrpc2: "))
	}
	return nil
}

// header reads the header lines up to the empty one, and returns the
// Content-Length.
func (c *Codec) header(r *bufio.Reader) (int64, error) {
	length := int64(-1)
	for first := true; ; first = false {
		line, err := r.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return 0, c.fault("a header line longer than %d bytes; want Name: value lines ended by CRLF", r.Size())
		case err == io.EOF && first && len(line) == 0:
			return 0, io.EOF
		case err == io.EOF:
			return 0, c.fault("the stream ends inside the headers")
		case err != nil:
			return 0, c.fault("reading the headers: %v", err)
		}
		text, ok := strings.CutSuffix(string(line), "\r\n")
		if !ok {
			return 0, c.fault("header line %q ends with LF alone; want CRLF", line)
		}
		if text == "" {
			if length < 0 {
				return 0, c.fault("the headers have no Content-Length")
			}
			return length, nil
		}
		name, value, ok := strings.Cut(text, ":")
		if !ok {
			return 0, c.fault("header line %q has no colon; want Name: value", text)
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type, the only other header, says UTF-8 JSON-RPC
		}
		value = strings.TrimSpace(value)
		n, err := strconv.ParseUint(value, 10, 63)
		if err != nil {
			return 0, c.fault("Content-Length %q is not a number of bytes", value)
		}
		if length >= 0 && int64(n) != length {
			return 0, c.fault("two Content-Length headers, %d and %d", length, n)
		}
		length = int64(n)
	}
}

// object checks that a body is one JSON object, and says how it is not.
func (c *Codec) object(body []byte) error {
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return c.fault("the body of Content-Length %d is empty; want one JSON object", len(body))
	case trimmed[0] == '[':
		return c.fault("the body is a JSON array (a batch); LSP sends one JSON object a message, and batches are not supported")
	case trimmed[0] != '{':
		return c.fault("the body is not a JSON object (it starts with %q)", string(trimmed[:min(len(trimmed), 16)]))
	case json.Valid(body):
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var obj json.RawMessage
	err := dec.Decode(&obj)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return c.fault("Content-Length %d ends inside the JSON object: the length is shorter than the message", len(body))
	case err == nil:
		end := dec.InputOffset()
		return c.fault("the JSON object ends at byte %d of Content-Length %d: the length is longer than the message (then %q)", end, len(body), string(body[end:min(len(body), int(end)+16)]))
	}
	return c.fault("the body is not valid JSON: %v", err)
}

// skimBudget is how much of a body over the limit is read for its method
// and document: clients write the text, the large part, after its URI.
const skimBudget = 64 << 10

// skim reads a body over the limit without keeping it, and returns a
// MethodTooLarge message in its place.
func (c *Codec) skim(r *bufio.Reader, length int64) ([]byte, error) {
	body := &countingReader{r: io.LimitReader(r, length)}
	dec := json.NewDecoder(io.LimitReader(body, skimBudget))
	dec.UseNumber()
	p := TooLargeParams{Length: length, Limit: c.MaxLength}
	var id any
	walk(dec, func(path string, v any) {
		switch s, _ := v.(string); path {
		case "method":
			p.Method = s
		case "id":
			id = v
		case "params.textDocument.uri":
			p.URI = s
		case "params.textDocument.version":
			if n, ok := v.(json.Number); ok {
				v, _ := n.Int64()
				p.Version = int(v)
			}
		}
	})
	if _, err := io.Copy(io.Discard, body); err != nil || body.n < length {
		return nil, c.shortBody(body.n, length)
	}
	msg := map[string]any{"jsonrpc": "2.0", "method": MethodTooLarge, "params": p}
	if id != nil {
		msg["id"] = id
	}
	return json.Marshal(msg)
}

// walk calls found with the dotted key path of each scalar value in the
// decoder's objects, until the end or the first error.
func walk(dec *json.Decoder, found func(path string, v any)) {
	type level struct {
		object, wantKey bool
		key             string
	}
	var stack []level
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				stack[n-1].key, stack[n-1].wantKey = key, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			stack = append(stack, level{object: tok == json.Delim('{'), wantKey: tok == json.Delim('{')})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:max(len(stack)-1, 0)]
			valueDone()
			continue
		}
		var keys []string
		for _, l := range stack {
			if !l.object {
				keys = append(keys, "[]")
				continue
			}
			keys = append(keys, l.key)
		}
		found(strings.Join(keys, "."), tok)
		valueDone()
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
