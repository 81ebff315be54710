package render

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// Fitter fits text to a width, for every text answer and help alike: a
// line longer than the width is broken between words, each further line
// indented to the line's value column (under the value, beside its label;
// a line that is itself indented keeps its indentation). A word is never
// cut: a position (file:line:col) or a URL wider than the room under the
// value goes whole on a line of its own, 4 columns in; one wider than
// that is the one kind of line longer than the width.
// Renderers that lay out cells or paragraphs ask it for the width
// (widthOf) and wrap to it themselves, so that the Fitter only breaks
// what they could not.
type Fitter struct {
	w     io.Writer
	width int
	buf   []byte
	err   error
}

// Fit returns a Fitter writing to w; a width of 0 or less fits nothing.
// Call Flush after the last write.
func Fit(w io.Writer, width int) *Fitter {
	return &Fitter{w: w, width: width}
}

// Width is the width the text is fitted to; 0 when it is not.
func (f *Fitter) Width() int { return max(f.width, 0) }

// Write fits each complete line written and writes it; the rest waits
// for its newline (or Flush).
func (f *Fitter) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	f.buf = append(f.buf, p...)
	for {
		i := bytes.IndexByte(f.buf, '\n')
		if i < 0 {
			break
		}
		f.emit(string(f.buf[:i]), "\n")
		f.buf = f.buf[i+1:]
	}
	if f.err != nil {
		return 0, f.err
	}
	return len(p), nil
}

// Flush writes the last line, when it has no newline.
func (f *Fitter) Flush() error {
	if len(f.buf) > 0 && f.err == nil {
		f.emit(string(f.buf), "")
		f.buf = nil
	}
	return f.err
}

func (f *Fitter) emit(line, end string) {
	if f.err != nil {
		return
	}
	_, f.err = io.WriteString(f.w, strings.Join(FitLine(line, f.width), "\n")+end)
}

// widthOf is the width the text written to w is fitted to, when w is a
// Fitter (or says its width); 0 when it is not fitted.
func widthOf(w io.Writer) int {
	if f, ok := w.(interface{ Width() int }); ok {
		return f.Width()
	}
	return 0
}

// FitTo is the width a renderer wraps a cell or paragraph at: def, its
// own, narrowed to what the fitted width leaves after used columns (and
// never below a third of the width, nor 16).
func FitTo(w io.Writer, def, used int) int {
	width := widthOf(w)
	if width <= 0 {
		return def
	}
	return min(def, max(width-used, width/3, 16))
}

// Columns is how many columns s takes on a terminal: a rune each, a tab
// to the next multiple of 8.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		if r == '\t' {
			n += 8 - n%8
		} else {
			n++
		}
	}
	return n
}

// FitLine breaks one line (without its newline) into lines of at most
// width columns, as Fitter does.
func FitLine(line string, width int) []string {
	if width <= 0 || Columns(line) <= width {
		return []string{line}
	}
	line = strings.TrimRight(line, " \t")
	body := strings.TrimLeft(line, " \t")
	lead := line[:len(line)-len(body)]
	indent := continuation(lead, body, width)

	var out []string
	cur, empty := lead, true
	for body != "" {
		// The next word, with the gap before it (kept as written: a
		// table's alignment inside a line stays).
		gapLen := len(body) - len(strings.TrimLeft(body, " "))
		gap, rest := body[:gapLen], body[gapLen:]
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		word := rest[:end]
		body = rest[end:]
		switch {
		case empty:
			if Columns(cur+word) > width && Columns(cur) > 4 {
				cur = "    " // too wide under its indentation: hung at 4, whole
			}
			cur += word
			empty = false
		case Columns(cur+gap+word) <= width:
			cur += gap + word
		default:
			out = append(out, cur)
			cur = indent + word
			if Columns(cur) > width {
				// Wider than the room under the value: hung at 4 columns,
				// alone, whole.
				cur = "    " + word
			}
		}
	}
	return append(out, cur)
}

// continuation is the indentation of a long line's further lines: an
// indented line's own; else its value column, the start of its last cell
// (after a gap of two spaces or more: a label's value, a table's last
// column) that leaves a third of the width, or of its first; else 4
// columns, a hanging indent.
func continuation(lead, body string, width int) string {
	if lead != "" {
		if Columns(lead) <= width-width/3 {
			return lead
		}
		return "    "
	}
	room := max(width/3, 16)
	best := -1
	for i := 0; i+2 < len(body); i++ {
		if body[i] == ' ' && body[i+1] == ' ' {
			j := i + 2
			for j < len(body) && body[j] == ' ' {
				j++
			}
			if j < len(body) {
				col := utf8.RuneCountInString(body[:j])
				if col <= width-room {
					best = col
				} else if best < 0 {
					break
				}
			}
			i = j - 1
		}
	}
	if best < 0 {
		return "    "
	}
	return strings.Repeat(" ", best)
}
