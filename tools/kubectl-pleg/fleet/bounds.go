package fleet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/plegvet/plegvet/internal/load/inputfile"
)

// answerContext bounds one answer of the API server (a page of the node
// list, a node, a node's configz or metrics, the body included) by
// --request-timeout, client-go's retries included: the client's own
// timeout bounds each HTTP request only, and client-go retries a 429 (or
// a 5xx with Retry-After) up to ten times, each after the wait the server
// asks for.
func (o *Options) answerContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.Timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, o.Timeout)
}

// metricsBound is what bounds a node's metrics request, and the flag
// that sets it: --metrics-timeout when it is shorter than
// --request-timeout (which bounds every request: the client's own HTTP
// timeout is set to it), else --request-timeout; 0 when neither bounds.
func (o *Options) metricsBound() (time.Duration, string) {
	if o.MetricsTimeout > 0 && (o.Timeout <= 0 || o.MetricsTimeout < o.Timeout) {
		return o.MetricsTimeout, "--metrics-timeout"
	}
	return o.Timeout, "--request-timeout"
}

// metricsContext bounds a node's metrics request, its body included, by
// metricsBound.
func (o *Options) metricsContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, _ := o.metricsBound(); d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

// limiterTimedOut says that a request gave up waiting for client-go's
// rate limiter, which fails at once when the wait would outlast the
// answer's deadline (x/time/rate's error wraps no context error).
func limiterTimedOut(err error) bool {
	return strings.Contains(err.Error(), "rate: Wait(n=1) would exceed context deadline")
}

// pages checks that the node list's pages come to an end, as the API
// server's do: each continue token new, each node listed once, and no
// more pages than the nodes listed so far could need (each page but the
// last holds one node at least). A server whose paging never ends
// (1,011 pages in 45 s, and counting) is an error naming the token.
type pages struct {
	n      int            // pages received
	tokens map[string]int // the page that returned each token
	nodes  map[string]bool
	last   string // the token the last page was asked with
}

// add takes a page's node names and its continue token, and says why the
// list would never end, if it would not.
func (p *pages) add(names []string, token string) error {
	p.n++
	if p.tokens == nil {
		p.tokens, p.nodes = map[string]int{}, map[string]bool{}
	}
	if first, seen := p.tokens[token]; seen && token != "" {
		return fmt.Errorf("cannot list nodes: page %d's continue token %s is page %d's again: the API server's list would never end", p.n, quoteToken(token), first)
	}
	for _, name := range names {
		if p.nodes[name] {
			return fmt.Errorf("cannot list nodes: page %d (continue token %s) lists node %q again: the API server's list would never end", p.n, quoteToken(p.last), name)
		}
		p.nodes[name] = true
	}
	if token == "" {
		return nil
	}
	p.tokens[token], p.last = p.n, token
	if p.n > len(p.nodes) {
		return fmt.Errorf("cannot list nodes: page %d has continue token %s after %d nodes, more pages than the nodes listed could need: the API server's list would never end", p.n, quoteToken(token), len(p.nodes))
	}
	return nil
}

// quoteToken is a continue token as an error quotes it: Go-quoted, cut
// (a token is the server's, of any length).
func quoteToken(token string) string {
	const limit = 64
	if r := []rune(token); len(r) > limit {
		return strconv.Quote(string(r[:limit])) + "…"
	}
	return strconv.Quote(token)
}

// maxMetricsLine bounds one line of a metrics body: a kubelet's longest
// is a few hundred bytes (a HELP text, a histogram bucket's labels), and
// the parser holds a line whole, several times over (a 200 MB HELP line
// took 775 MB).
const maxMetricsLine = 1 << 20

// tooLarge is the error of a metrics body over a limit: what it is, and
// what was expected.
type tooLarge struct{ msg string }

func (e *tooLarge) Error() string { return e.msg }

// cappedBody passes a metrics body on until it is over inputfile.MaxSize
// bytes (what plegvet node reads of a metrics file) or a line of it over
// maxMetricsLine, and then fails with a *tooLarge.
type cappedBody struct {
	r     io.Reader
	n     int64 // bytes passed on
	line  int   // bytes of the line being read
	lines int   // lines ended
}

func (c *cappedBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	chunk := p[:n]
	if first := bytes.IndexByte(chunk, '\n'); first >= 0 {
		if c.line+first > maxMetricsLine {
			return 0, c.longLine()
		}
		c.lines += bytes.Count(chunk, []byte{'\n'})
		c.line = n - 1 - bytes.LastIndexByte(chunk, '\n')
	} else {
		c.line += n
	}
	if c.line > maxMetricsLine {
		return 0, c.longLine()
	}
	if c.n += int64(n); c.n > inputfile.MaxSize {
		return 0, &tooLarge{fmt.Sprintf("more than %d bytes, plegvet node's limit for a metrics file; want the kubelet's metrics", inputfile.MaxSize)}
	}
	return n, err
}

func (c *cappedBody) longLine() error {
	return &tooLarge{fmt.Sprintf("line %d is more than %d bytes; want the kubelet's metrics, whose lines are a few hundred bytes", c.lines+1, maxMetricsLine)}
}
