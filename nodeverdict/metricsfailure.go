// A metrics request that got no answer: what it says about the kubelet
// and its runtime. A hung runtime makes the kubelet's /metrics wait with
// it (its collectors call the runtime while a scrape is served), while
// /configz, which calls no runtime, still answers: the failure is itself
// the evidence.

package nodeverdict

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
	"time"
)

// The kinds of a failed metrics request.
const (
	// FailureTimeout: the request waited until a deadline and got no
	// answer: the kubelet accepted it and did not answer in time (or the
	// node did not answer at all: only another answer from the same
	// kubelet, its configz, tells a kubelet that is alive).
	FailureTimeout = "timeout"
	// FailureRefused: the request was refused or reset at once: no
	// kubelet is listening (or the API server could not reach one).
	FailureRefused = "refused"
	// FailureOther: any other error (authorization, a status code).
	FailureOther = "other"
)

// WaitedComment starts the line of a saved metrics failure that says how
// long the request waited: "# waited 45s" (a Go duration).
const WaitedComment = "# waited "

// metricsFailureWant is what a saved metrics failure should be.
const metricsFailureWant = `a failed metrics request as kubectl pleg --save writes it: "# scraped at RFC3339", "# waited DURATION", then the error on one line`

// MetricsFailure is a metrics request that got no answer.
type MetricsFailure struct {
	// Error is the request's error, as the client printed it.
	Error string `json:"error"`
	// Kind is timeout, refused or other, read from Error (see
	// FailureKind).
	Kind string `json:"kind"`
	// Waited is how long the request waited before it failed, as Go
	// prints a duration; "" when not known.
	Waited string `json:"waited,omitempty"`
	// At is when the request was made; null when not known.
	At *time.Time `json:"at"`
}

// NewMetricsFailure is the failure of a request made at at (nil: not
// known) that waited waited (0: not known) and got err's text.
func NewMetricsFailure(text string, waited time.Duration, at *time.Time) *MetricsFailure {
	// One line, as a saved failure holds it.
	f := &MetricsFailure{Error: strings.Join(strings.Fields(text), " "), Kind: FailureKind(text), At: at}
	if waited > 0 {
		f.Waited = waited.String()
	}
	return f
}

// WaitedFor is Waited as a duration; 0 when not known.
func (f *MetricsFailure) WaitedFor() time.Duration {
	d, err := time.ParseDuration(f.Waited)
	if err != nil {
		return 0
	}
	return d
}

// The words of a timed-out request, as Go's net/http, its net package,
// gRPC, client-go and the API server's proxy print them; and of a refused
// one. Matched in lower case.
var (
	timeoutWords = []string{
		"context deadline exceeded", "client.timeout exceeded", "i/o timeout", "timeout awaiting response headers",
		"deadline exceeded", "timed out", "the server was unable to return a response in the time allotted",
		"gateway timeout", "request canceled while waiting for connection", "handshake timeout",
	}
	refusedWords = []string{
		"connection refused", "connection reset", "no route to host", "network is unreachable", "broken pipe", "eof",
	}
)

// FailureKind reads a request's error text: FailureTimeout when it says
// the request ran out of time, FailureRefused when the connection was
// refused or reset, FailureOther else. Timeout wins: a proxy that timed
// out may quote the refusal it retried.
func FailureKind(text string) string {
	low := strings.ToLower(text)
	for _, w := range timeoutWords {
		if strings.Contains(low, w) {
			return FailureTimeout
		}
	}
	for _, w := range refusedWords {
		if strings.Contains(low, w) {
			return FailureRefused
		}
	}
	return FailureOther
}

// The words of where a timed-out request was when its time ran out,
// matched in lower case. A request that never reached the kubelet (its
// name not resolved, its connection not made, its TLS handshake not
// done, a forward proxy's connection not made) says nothing of the
// runtime; one that timed out awaiting the response's headers, past all
// of those, was accepted by the kubelet, whose handler did not answer.
// Go's client says "awaiting headers" whenever Client.Timeout fires
// before the headers came, dialing included: the words of the earlier
// stages win.
var (
	beforeKubeletWords = []string{
		"dial tcp", "dial udp", "dial unix", "lookup ", "no such host", "tls handshake", "proxyconnect",
		"waiting for connection", "error trying to reach service", "connect: ",
	}
	handlerWords = []string{"awaiting headers", "awaiting response headers"}
)

// The answers of Reach.
const (
	// ReachedHandler: the request timed out after its connection was
	// made, awaiting the response's headers: the kubelet's handler had it.
	ReachedHandler = "handler"
	// ReachedNever: it failed before it reached the kubelet (DNS, dial,
	// TLS handshake, a proxy's connection).
	ReachedNever = "never"
	// ReachedUnknown: its words do not say where it was.
	ReachedUnknown = "unknown"
)

// Reach says how far a failed request got, from its words: only a
// timeout that reached the kubelet's handler is evidence about the
// runtime (the handler waits on collectors that call it); why says so in
// words.
func (f *MetricsFailure) Reach() (reach, why string) {
	low := strings.ToLower(f.Error)
	for _, w := range beforeKubeletWords {
		if strings.Contains(low, w) {
			return ReachedNever, fmt.Sprintf("its error says %q: it failed before it reached the kubelet (resolving its name, connecting, the TLS handshake or a proxy's connection), so it says nothing of the kubelet's runtime", strings.TrimSpace(w))
		}
	}
	if f.Kind != FailureTimeout {
		return ReachedUnknown, "it is no timeout"
	}
	for _, w := range handlerWords {
		if strings.Contains(low, w) {
			return ReachedHandler, fmt.Sprintf("its error says %q with no word of dialing, resolving or a handshake: its connection was made and the request sent, and the kubelet's handler did not answer in time", w)
		}
	}
	return ReachedUnknown, "its error does not say whether it timed out before its connection was made or awaiting the kubelet's answer (Go's net/http says \"awaiting headers\" for the latter), so it says nothing of the runtime"
}

// Format writes f as kubectl pleg --save keeps it, which
// ReadMetricsFailure reads back.
func (f *MetricsFailure) Format() []byte {
	var b bytes.Buffer
	if f.At != nil {
		b.WriteString(ScrapedAtComment + f.At.UTC().Format(time.RFC3339Nano) + "\n")
	}
	if f.Waited != "" {
		b.WriteString(WaitedComment + f.Waited + "\n")
	}
	line := strings.Join(strings.Fields(f.Error), " ")
	if strings.HasPrefix(line, "#") {
		line = " " + line // an error, not a comment
	}
	b.WriteString(line + "\n")
	return b.Bytes()
}

// ReadMetricsFailure reads a failed metrics request saved by Format. name
// is the file's, for errors.
func ReadMetricsFailure(name string, data []byte) (*MetricsFailure, error) {
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s; want %s", name, line, fmt.Sprintf(format, args...), metricsFailureWant)
	}
	var (
		at     *time.Time
		waited time.Duration
		text   string
		n      int
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, ScrapedAtComment):
			if at != nil {
				return nil, bad(n, "a second %q line", strings.TrimSpace(ScrapedAtComment))
			}
			t, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(line, ScrapedAtComment))
			if err != nil {
				return nil, bad(n, "%q is not an RFC 3339 time", printable(shortValue(strings.TrimPrefix(line, ScrapedAtComment))))
			}
			t = t.UTC()
			at = &t
		case strings.HasPrefix(line, WaitedComment):
			d, err := time.ParseDuration(strings.TrimPrefix(line, WaitedComment))
			if err != nil || d <= 0 {
				return nil, bad(n, "%q is not a positive duration", printable(shortValue(strings.TrimPrefix(line, WaitedComment))))
			}
			waited = d
		case strings.HasPrefix(line, "#"):
			return nil, bad(n, "an unknown comment %q", printable(shortValue(line)))
		case text != "":
			return nil, bad(n, "a second error line")
		default:
			text = line
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w; want %s", name, err, metricsFailureWant)
	}
	if text == "" {
		return nil, fmt.Errorf("%s: no error line; want %s", name, metricsFailureWant)
	}
	return NewMetricsFailure(text, waited, at), nil
}
