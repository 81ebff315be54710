package nodeverdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// decodeJSONObject decodes a file holding one JSON object. Its errors name
// the file, with line:column for syntax errors, and end with want, what
// the file should have been.
func decodeJSONObject(name string, data []byte, want string) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, captureError(name, "empty file; want %s", want)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg := se.Error()
			at := se.Offset - 1 // the offending byte is the last one read
			if se.Offset >= int64(len(data)) {
				// The scanner reports a cut-off value as an odd character at
				// the end; say what happened.
				msg, at = "the file ends in the middle of a value (cut short?)", int64(len(data))
			}
			line, col := lineCol(data, at)
			return nil, &CaptureError{File: name, Line: line, Col: col, Msg: fmt.Sprintf("not JSON: %s; want %s", msg, want), Err: err}
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// A number beyond float64 (a million digits, say): name where it
			// is, not the number itself.
			line, col := lineCol(data, te.Offset)
			return nil, &CaptureError{File: name, Line: line, Col: col, Msg: fmt.Sprintf("a JSON %s that does not fit a %s; want %s", shortValue(te.Value), te.Type, want), Err: err}
		}
		return nil, &CaptureError{File: name, Msg: fmt.Sprintf("not JSON: %s; want %s", shortValue(err.Error()), want), Err: err}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, captureError(name, "JSON %s, not an object; want %s", kind(v), want)
	}
	return obj, nil
}

// lineCol returns the 1-based line and column of the byte at offset
// (of the end of the data when offset is len(data)).
func lineCol(data []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(data))))
	before := data[:offset]
	line = 1 + bytes.Count(before, []byte("\n"))
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// kind describes a decoded JSON value for an error message.
func kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(v)
	case float64:
		return "number " + fmt.Sprint(v)
	case string:
		if len(v) > 40 {
			v = v[:40] + "..."
		}
		return fmt.Sprintf("string %q", v)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// keys lists an object's keys, sorted, at most a few, for error messages.
func keys(obj map[string]any) string {
	ks := make([]string, 0, len(obj))
	for k := range obj {
		ks = append(ks, fmt.Sprintf("%q", k))
	}
	sort.Strings(ks)
	const most = 5
	if len(ks) > most {
		ks = append(ks[:most], "...")
	}
	if len(ks) == 0 {
		return "no keys"
	}
	return "keys " + strings.Join(ks, ", ")
}

// shortValue cuts text quoted from an input so that an error stays short.
func shortValue(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:max], len(s))
}

// duplicateKey finds, in data that json.Unmarshal accepted, the first key
// said twice in one object, looking only in the objects at the paths
// within says (the top object is the empty path): encoding/json keeps the
// last of two values, so a file that says both would be read as saying
// only the second. Its error names the file at the second key, the key's
// path, and where the first one is; nil when there is no such key.
func duplicateKey(name string, data []byte, within func(path []string) bool, want string) error {
	return checkKeys(name, data, within, nil, want)
}

// checkKeys is duplicateKey that also refuses, in the objects within
// says, a key that differs only in case from one of those known(path)
// lists: JSON keys are case-sensitive, so such a key would be read as the
// known key absent. Its error names the file at the key, the key's path
// and the key expected.
func checkKeys(name string, data []byte, within func(path []string) bool, known func(path []string) []string, want string) error {
	s := &keyScan{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data)), within: within, known: known, want: want}
	if ce, ok := s.value(nil).(*CaptureError); ok {
		return ce
	}
	// The data decoded once already; a token the scan cannot read is not
	// a duplicate.
	return nil
}

type keyScan struct {
	name, want string
	data       []byte
	dec        *json.Decoder
	within     func(path []string) bool
	known      func(path []string) []string
}

// next is the offset of the next token's first byte, past white space and
// the comma or colon before it.
func (s *keyScan) next() int64 {
	at := s.dec.InputOffset()
	for at < int64(len(s.data)) && strings.IndexByte(" \t\r\n,:", s.data[at]) >= 0 {
		at++
	}
	return at
}

// value reads the next value, looking for duplicates in it if it is an
// object at a path within says.
func (s *keyScan) value(path []string) error {
	if at := s.next(); !s.within(path) || at >= int64(len(s.data)) || s.data[at] != '{' {
		var skip json.RawMessage
		return s.dec.Decode(&skip)
	}
	if _, err := s.dec.Token(); err != nil { // {
		return err
	}
	seen := map[string]int64{} // a key's offset, at its opening quote
	for s.dec.More() {
		at := s.next()
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // the decoder reads only strings as keys
		keyPath := append(path[:len(path):len(path)], key)
		if first, dup := seen[key]; dup {
			line, col := lineCol(s.data, at)
			fl, fc := lineCol(s.data, first)
			return &CaptureError{File: s.name, Line: line, Col: col, Msg: fmt.Sprintf("%s a second time (first at %d:%d); want %s", jsonPath(keyPath), fl, fc, s.want)}
		}
		seen[key] = at
		if k := s.miscased(path, key); k != "" {
			line, col := lineCol(s.data, at)
			return &CaptureError{File: s.name, Line: line, Col: col, Msg: fmt.Sprintf("%s differs from %s only in case; want %q (JSON keys are case-sensitive: this one would be read as %s absent)", jsonPath(keyPath), jsonPath(append(path[:len(path):len(path)], k)), k, k)}
		}
		if err := s.value(keyPath); err != nil {
			return err
		}
	}
	_, err := s.dec.Token() // }
	return err
}

// miscased is the known key at path that key differs from only in case;
// "" when there is none.
func (s *keyScan) miscased(path []string, key string) string {
	if s.known == nil {
		return ""
	}
	for _, k := range s.known(path) {
		if key != k && strings.EqualFold(key, k) {
			return k
		}
	}
	return ""
}

// jsonPath prints a path of keys for an error message, a.b.c, quoting a
// key that is not a plain name and cutting a long one.
func jsonPath(path []string) string {
	elems := make([]string, len(path))
	for i, k := range path {
		elems[i] = shortValue(gateKey(k))
	}
	return strings.Join(elems, ".")
}
