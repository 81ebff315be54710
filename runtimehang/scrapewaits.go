// What a scrape waits on: the CRI methods the collectors reach, the
// chain the hang is told by, whether and when /metrics waits on a hung
// runtime, and the branches and timeouts a reach runs under.

package runtimehang

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plegvet/plegvet/constvalue"
	"github.com/plegvet/plegvet/ladder"
	"github.com/plegvet/plegvet/srcpos"
)

// Branches are the branches the reach's calls run under, outermost
// first (each step's When); none when every call runs whatever the
// conditions.
func (r Reach) Branches() []string {
	var ws []string
	for _, s := range r.Steps {
		if s.When != "" {
			ws = append(ws, s.When)
		}
	}
	return ws
}

// Bound is the tightest timeout a step of the reach puts on the calls
// from it on (Step.Bound): the one resolved to the shortest duration, else
// the first unresolved; nil when no step bounds it.
func (r Reach) Bound() *constvalue.Value {
	var tight *constvalue.Value
	for _, s := range r.Steps {
		b := s.Bound
		if b == nil {
			continue
		}
		d, ok := b.Duration()
		if t, tok := tight.Duration(); tight == nil || ok && (!tok || d < t) {
			tight = b
		}
	}
	return tight
}

// BoundBelow reports whether every reach of c is bounded by a timeout
// resolved to a duration shorter than d: a scrape waits on c at most
// that long, however slow or hung the runtime. why names the bounds.
func (c *Collector) BoundBelow(d time.Duration) (ok bool, why string) {
	if len(c.Reaches) == 0 {
		return false, ""
	}
	var at []string
	for _, r := range c.Reaches {
		b := r.Bound()
		t, resolved := b.Duration()
		if b == nil || !resolved || t >= d {
			return false, ""
		}
		w := fmt.Sprintf("%s (%s)", b.Value, srcpos.Line(b.Decl))
		if !slices.Contains(at, w) {
			at = append(at, w)
		}
	}
	return true, fmt.Sprintf("%s bounds its runtime calls by %s, shorter than %s", c.Constructor, strings.Join(at, ", "), d)
}

// CRIMethods are the CRI methods any collector registered on /metrics
// reaches, sorted, each once (the server's other paths are the ladder's).
func (h *Hang) CRIMethods() []string {
	if h == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range h.Collectors {
		if c.Endpoint != "/metrics" {
			continue
		}
		for _, r := range c.Reaches {
			if !seen[r.Method] {
				seen[r.Method] = true
				out = append(out, r.Method)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Chain is the first chain found from a registered collector to a CRI
// call (one whose calls no timeout of its own cuts short of a scrape's,
// when there is one): the registration, the collector's Collect, then
// each call; nil when no collector reaches the runtime.
func (h *Hang) Chain() []Step {
	if h == nil {
		return nil
	}
	var first *Collector
	for i := range h.Collectors {
		c := &h.Collectors[i]
		if len(c.Reaches) == 0 || c.Collect == nil {
			continue
		}
		if first == nil {
			first = c
		}
		if bounded, _ := c.BoundBelow(ladder.DefaultScrapeTimeout); !bounded {
			first = c
			break
		}
	}
	if first == nil {
		return nil
	}
	out := []Step{{Func: first.Register + "(" + first.Constructor + ")", Pos: first.Registered, Decl: first.Decl}, *first.Collect}
	return append(out, first.Reaches[0].Steps...)
}

// DarkOnHang reports whether a collector registered on /metrics calls the
// runtime during a scrape: /metrics then waits on a hung runtime.
func (h *Hang) DarkOnHang() bool {
	if h == nil {
		return false
	}
	for _, c := range h.Collectors {
		if c.Endpoint == "/metrics" && len(c.Reaches) > 0 && !c.Never {
			if bounded, _ := c.BoundBelow(ladder.DefaultScrapeTimeout); !bounded {
				return true
			}
		}
	}
	return false
}

// DarkWhen are the conditions under which /metrics waits on a hung
// runtime: none (nil) when a collector reaching the runtime is
// registered unconditionally, else each reaching collector's condition.
func (h *Hang) DarkWhen() []string {
	var out []string
	for _, c := range h.Collectors {
		if c.Endpoint != "/metrics" || len(c.Reaches) == 0 || c.Never {
			continue
		}
		if bounded, _ := c.BoundBelow(ladder.DefaultScrapeTimeout); bounded {
			continue
		}
		if c.When == "" {
			return nil
		}
		if !slices.Contains(out, c.When) {
			out = append(out, c.When)
		}
	}
	return out
}

// BoundedBelow says, for each collector registered on /metrics that
// reaches the runtime and bounds its calls by a timeout shorter than a
// scrape's (the default 10s), which timeouts: why /metrics does not wait
// on it.
func (h *Hang) BoundedBelow() []string {
	if h == nil {
		return nil
	}
	var out []string
	for i := range h.Collectors {
		c := &h.Collectors[i]
		if c.Endpoint != "/metrics" || c.Never {
			continue
		}
		if ok, why := c.BoundBelow(ladder.DefaultScrapeTimeout); ok {
			out = append(out, why)
		}
	}
	return out
}
