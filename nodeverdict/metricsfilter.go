// The line filter in front of the Prometheus parser: it passes on only
// the families the verdict reads, keeping line numbers and family counts.

package nodeverdict

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// keptNames are the names of the lines a filter keeps: each family's
// name, and the names its samples or an OpenMetrics-style counter take.
var keptNames = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range Families() {
		for _, suffix := range []string{"", "_total", "_bucket", "_sum", "_count"} {
			m[f+suffix] = true
		}
	}
	return m
}()

// metricsFilter is a reader of the text format that passes on the lines
// of the kept families, an empty line for each other line (so that the
// parser's line numbers stay right), and whatever it cannot tell the
// family of. It holds one line at a time (a prefix of a line longer than
// its buffer), and remembers the families it dropped, with their types,
// to count them as the parser would.
type metricsFilter struct {
	in  *bufio.Reader
	out []byte
	// inLine says the next read continues a line longer than the
	// buffer, and keeping whether that line is passed on.
	inLine, keeping bool
	// dropped are the families dropped, by name, with their types, and
	// sampled those with a sample (the parser drops a family without).
	dropped map[string]dto.MetricType
	sampled map[string]bool
	// done is io.EOF, or the input's error.
	done error
	// line is how many lines were read in full.
	line int
	// scrapedAt is the capture's time, from its ScrapedAtComment line;
	// scrapedLine that line's number, scrapedWrong what is wrong with it
	// (or with a second one).
	scrapedAt    *time.Time
	scrapedLine  int
	scrapedWrong string
	// series are the kept samples' series (name and sorted labels) by
	// the line that gave each, and dupLine, dupWrong the first series
	// given twice: the parser keeps both samples without a word (a
	// counter read twice, a histogram's _count overwritten).
	series   map[string]int
	dupLine  int
	dupWrong string
}

func newMetricsFilter(r io.Reader) *metricsFilter {
	return &metricsFilter{in: bufio.NewReaderSize(r, 64<<10), dropped: map[string]dto.MetricType{}, sampled: map[string]bool{}, series: map[string]int{}}
}

func (f *metricsFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.done != nil {
			return 0, f.done
		}
		f.next()
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// next reads the next line, or the next piece of a long one, into out.
func (f *metricsFilter) next() {
	chunk, err := f.in.ReadSlice('\n')
	if err != nil && err != bufio.ErrBufferFull {
		f.done = err
	}
	// out aliases the reader's buffer until the next ReadSlice, which
	// runs only once out is drained.
	ended := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
	switch {
	case f.inLine && f.keeping:
		f.out = chunk
	case f.inLine:
		if ended {
			f.out = newline
		}
	case len(chunk) == 0:
	case !ended && err != bufio.ErrBufferFull:
		// A last line without its newline: the parser says how it is
		// cut, as it would of the whole input.
		f.out = chunk
	case f.keep(chunk):
		f.out = chunk
	case ended:
		f.out = newline
	}
	if !f.inLine {
		f.keeping = len(f.out) > 0
	}
	f.inLine = !ended && err == bufio.ErrBufferFull
	if ended {
		f.line++
	}
}

var newline = []byte("\n")

// metricName matches a metric name at the start of a line.
var metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*`)

// keep says whether to pass a line (or a long line's first piece) on: a
// line of a kept family, or one whose family it cannot tell. A dropped
// line's family is remembered.
func (f *metricsFilter) keep(line []byte) bool {
	s := bytes.TrimLeft(line, " \t")
	switch {
	case len(s) == 0 || s[0] == '\n':
		return true
	case s[0] == '#':
		if scrapedAtLine(s) {
			f.scraped(string(bytes.TrimSuffix(line, newline)))
			return false
		}
		fields := bytes.Fields(s[1:])
		if len(fields) == 0 || (string(fields[0]) != "HELP" && string(fields[0]) != "TYPE") {
			return false // a comment
		}
		if len(fields) < 2 || len(metricName.Find(fields[1])) < len(fields[1]) {
			return true
		}
		name := string(fields[1])
		if keptNames[name] || bytes.IndexByte(s, '\\') >= 0 {
			return true // the parser reads escapes in HELP
		}
		if string(fields[0]) == "TYPE" {
			t, ok := dto.MetricType_value[strings.ToUpper(string(fields[len(fields)-1]))]
			if len(fields) != 3 || !ok {
				return true // the parser says what is wrong with the type
			}
			f.dropped[name] = dto.MetricType(t)
		} else if _, seen := f.dropped[name]; !seen {
			f.dropped[name] = dto.MetricType_UNTYPED
		}
		return false
	}
	i := len(metricName.Find(s))
	if i == 0 || i == len(s) || (s[i] != '{' && s[i] != ' ' && s[i] != '\t') {
		return true
	}
	name := string(s[:i])
	if keptNames[name] && wellFormed(s[i:]) {
		f.sample(name, s[i:])
	}
	if keptNames[name] || !wellFormed(s[i:]) {
		return true
	}
	f.dropSample(name)
	return false
}

// wellFormed says whether what follows a sample's name is labels, a value
// and maybe a timestamp, and a newline: a line the parser would take. A
// line it doubts is passed on, for the parser to say what is wrong.
func wellFormed(s []byte) bool {
	if len(s) > 0 && s[0] == '{' {
		quoted := false
		end := -1
		for i := 1; i < len(s) && end < 0; i++ {
			switch c := s[i]; {
			case quoted && c == '\\':
				i++
			case c == '"':
				quoted = !quoted
			case c == '\n':
				return false
			case !quoted && c == '}':
				end = i
			}
		}
		if end < 0 {
			return false
		}
		s = s[end+1:]
	}
	fields := bytes.Fields(s)
	if len(fields) == 0 || len(fields) > 2 || !bytes.HasSuffix(s, newline) {
		return false
	}
	if _, err := strconv.ParseFloat(string(fields[0]), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return false
	}
	if bytes.ContainsRune(fields[0], '_') {
		return false // ParseFloat takes underscores; the parser does not
	}
	if len(fields) == 2 {
		if _, err := strconv.ParseInt(string(fields[1]), 10, 64); err != nil {
			return false
		}
	}
	return true
}

// scrapedAtLine says whether a comment line (blanks before it trimmed)
// means to say when the capture was taken: "scraped at" in any case and
// spacing, with or without a time, so that a malformed one is named as
// such, never read as a capture without a time.
func scrapedAtLine(s []byte) bool {
	said := strings.Join(strings.Fields(strings.ToLower(string(s[1:]))), " ")
	return said == "scraped" || strings.HasPrefix(said, "scraped at") || strings.HasPrefix(said, "scraped_at") || strings.HasPrefix(said, "scrapedat")
}

// sample remembers the series of a kept sample line (rest is what follows
// its name); the first series given twice is kept as a fault.
func (f *metricsFilter) sample(name string, rest []byte) {
	key := name + seriesLabels(rest)
	line := f.line + 1
	if first, ok := f.series[key]; ok {
		if f.dupWrong == "" {
			f.dupLine = line
			f.dupWrong = fmt.Sprintf("%s a second time (the first is line %d); want one sample per series, one scrape of one kubelet (the parser would take both: two captures put together?)", printable(seriesText(key)), first)
		}
		return
	}
	f.series[key] = line
}

// seriesText is a series' name and labels for an error: up to 200 bytes.
func seriesText(key string) string {
	if len(key) <= 200 {
		return key
	}
	return fmt.Sprintf("%s... (%d bytes)", key[:200], len(key))
}

// seriesLabels is a sample's labels in a form that is the same whatever
// their order: {a="x",b="y"}, sorted as written; "" for none. rest is
// what follows the sample's name, as wellFormed accepts it.
func seriesLabels(rest []byte) string {
	if len(rest) == 0 || rest[0] != '{' {
		return ""
	}
	var pairs []string
	quoted, start := false, 1
	for i := 1; i < len(rest); i++ {
		switch c := rest[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && (c == ',' || c == '}'):
			if p := strings.TrimSpace(string(rest[start:i])); p != "" {
				pairs = append(pairs, p)
			}
			start = i + 1
			if c == '}' {
				i = len(rest)
			}
		}
	}
	if len(pairs) == 0 {
		return ""
	}
	slices.Sort(pairs)
	return "{" + strings.Join(pairs, ",") + "}"
}

// dupErr is the first series given twice, named at its second line; nil
// when none is.
func (f *metricsFilter) dupErr(name string) error {
	if f.dupWrong == "" {
		return nil
	}
	return &CaptureError{File: name, Line: f.dupLine, Msg: f.dupWrong}
}

// scrapedWant is the capture's time line as kubectl pleg --save writes it.
const scrapedWant = "want exactly " + `"` + ScrapedAtComment + `" and an RFC 3339 time, as kubectl pleg --save writes it (` + ScrapedAtComment + "2026-12-03T06:45:01Z)"

// scraped reads the capture's time from its comment line (the whole line,
// without its newline): once, in RFC 3339, exactly as kubectl pleg --save
// writes it; the first fault is kept.
func (f *metricsFilter) scraped(whole string) {
	line := f.line + 1
	if f.scrapedWrong != "" {
		return
	}
	if f.scrapedLine != 0 {
		f.scrapedLine, f.scrapedWrong = line, fmt.Sprintf("a second %q line (the first is line %d); want one capture's time", strings.TrimSpace(ScrapedAtComment), f.scrapedLine)
		return
	}
	f.scrapedLine = line
	text, ok := strings.CutPrefix(whole, ScrapedAtComment)
	wrong := ""
	switch {
	case ok && strings.TrimSpace(text) == "", !ok && strings.TrimRight(whole, " \t\r") == strings.TrimSpace(ScrapedAtComment):
		wrong = "no time"
	case !ok:
		wrong = "not in that case and spacing"
	case text != strings.TrimSpace(text):
		wrong = "blanks around the time"
	}
	if wrong != "" {
		f.scrapedWrong = fmt.Sprintf("malformed %q line %q: %s; %s", strings.TrimSpace(ScrapedAtComment), printable(shortValue(whole)), wrong, scrapedWant)
		return
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err == nil {
		t = t.UTC()
		_, err = t.MarshalText() // a year past 9999 in UTC
	}
	if err != nil {
		f.scrapedWrong = fmt.Sprintf("%q is not a time; want RFC 3339 (%s2026-12-03T06:45:01Z)", printable(shortValue(text)), ScrapedAtComment)
		return
	}
	f.scrapedAt = &t
}

// scrapedErr is what is wrong with the capture's time line, named at its
// line; nil when nothing is.
func (f *metricsFilter) scrapedErr(name string) error {
	if f.scrapedWrong == "" {
		return nil
	}
	return &CaptureError{File: name, Line: f.scrapedLine, Msg: f.scrapedWrong}
}

// dropSample remembers a dropped sample's family as the parser names it:
// a _sum, _count or _bucket of a summary or histogram seen before belongs
// to it.
func (f *metricsFilter) dropSample(name string) {
	if _, ok := f.dropped[name]; ok {
		f.sampled[name] = true
		return
	}
	for _, suffix := range []string{"_sum", "_count", "_bucket"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		t, seen := f.dropped[base]
		if seen && (t == dto.MetricType_HISTOGRAM || t == dto.MetricType_SUMMARY && suffix != "_bucket") {
			f.sampled[base] = true
			return
		}
	}
	f.dropped[name] = dto.MetricType_UNTYPED
	f.sampled[name] = true
}

// families is how many families the input had: those parsed and those
// dropped.
func (f *metricsFilter) families(parsed map[string]*dto.MetricFamily) int {
	n := len(parsed)
	for name := range f.sampled {
		if parsed[name] == nil {
			n++
		}
	}
	return n
}
