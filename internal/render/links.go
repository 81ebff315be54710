package render

import (
	"bytes"
	"cmp"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Hyperlinks wraps w, a terminal's, so that each position it prints as
// NAME:LINE or NAME:LINE:COLUMN, NAME one of names (the printed form of a
// file name mapped to the name itself), becomes an OSC 8 hyperlink to
// link(name, line): a click opens the file at its tag, or on disk. The
// text is written as it was laid out (the escape sequences take no
// column), one line at a time; Flush writes a last unterminated line.
// Nothing else is changed: a name not in names, or one inside a longer
// word, stays plain.
func Hyperlinks(w io.Writer, names map[string]string, link func(file string, line int) string) *LinkWriter {
	printed := make([]string, 0, len(names))
	for p := range names {
		if p != "" {
			printed = append(printed, p)
		}
	}
	// The longest name first: RE2 takes the first alternative that
	// matches, and a name may end another (kubelet.go, pkg/kubelet/kubelet.go).
	slices.SortFunc(printed, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	lw := &LinkWriter{w: w, names: names, link: link}
	if len(printed) > 0 {
		quoted := make([]string, len(printed))
		for i, p := range printed {
			quoted[i] = regexp.QuoteMeta(p)
		}
		lw.re = regexp.MustCompile(`(` + strings.Join(quoted, "|") + `):([0-9]+)(?::[0-9]+)?`)
	}
	return lw
}

// LinkWriter is Hyperlinks' writer.
type LinkWriter struct {
	w       io.Writer
	names   map[string]string
	link    func(string, int) string
	re      *regexp.Regexp
	pending []byte // the line not yet ended
}

func (l *LinkWriter) Write(p []byte) (int, error) {
	l.pending = append(l.pending, p...)
	if i := bytes.LastIndexByte(l.pending, '\n'); i >= 0 {
		if _, err := io.WriteString(l.w, l.linked(string(l.pending[:i+1]))); err != nil {
			return 0, err
		}
		l.pending = append(l.pending[:0], l.pending[i+1:]...)
	}
	return len(p), nil
}

// Flush writes the last line when it has no newline.
func (l *LinkWriter) Flush() error {
	s := string(l.pending)
	l.pending = nil
	_, err := io.WriteString(l.w, l.linked(s))
	return err
}

// linked is s with each position of a known file wrapped in a hyperlink.
func (l *LinkWriter) linked(s string) string {
	if l.re == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range l.re.FindAllStringSubmatchIndex(s, -1) {
		start, end := m[0], m[1]
		if start > 0 && isNameByte(s[start-1]) || end < len(s) && isDigit(s[end]) {
			continue // part of a longer name, or of a longer number
		}
		line, err := strconv.Atoi(s[m[4]:m[5]])
		if err != nil {
			continue
		}
		target := l.link(l.names[s[m[2]:m[3]]], line)
		if target == "" || strings.ContainsFunc(target, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString("\x1b]8;;" + target + "\x1b\\" + s[start:end] + "\x1b]8;;\x1b\\")
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// isNameByte says that c may be part of a file name printed before a
// position (a path, not the prose around it).
func isNameByte(c byte) bool {
	return c == '/' || c == '.' || c == '_' || c == '-' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
