package harness

import (
	"bufio"
	"fmt"
	"regexp"
	"strings"
)

// AlertRuntimeHung is the alert for a runtime that answers no call (a
// scrape of the kubelet's /metrics timing out), when the rules have it.
const AlertRuntimeHung = "KubeletRuntimeHung"

// AlertMetricsDark is the warning for a dark /metrics on a node still
// Ready: it yields to AlertRuntimeHung once Ready turns False.
const AlertMetricsDark = "KubeletMetricsDark"

// Goroutine is one goroutine of a debug=2 dump: its header line and its
// frames, each a function and its file:line.
type Goroutine struct {
	Header string
	Frames []Frame
}

// Frame is one frame of a goroutine's stack.
type Frame struct {
	Func, File string
}

var (
	goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[`)
	createdIn       = regexp.MustCompile(` in goroutine \d+$`)
)

// ParseGoroutines reads a /debug/pprof/goroutine?debug=2 dump.
func ParseGoroutines(text string) []Goroutine {
	var gs []Goroutine
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	var cur *Goroutine
	for sc.Scan() {
		l := sc.Text()
		switch {
		case goroutineHeader.MatchString(l):
			gs = append(gs, Goroutine{Header: l})
			cur = &gs[len(gs)-1]
		case cur == nil || strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, "\t"):
			if n := len(cur.Frames); n > 0 && cur.Frames[n-1].File == "" {
				f := strings.TrimSpace(l)
				if i := strings.LastIndex(f, " +0x"); i > 0 {
					f = f[:i]
				}
				cur.Frames[n-1].File = f
			}
		default:
			cur.Frames = append(cur.Frames, Frame{Func: createdIn.ReplaceAllString(l, "")})
		}
	}
	return gs
}

// Holds says whether any of the goroutine's frames' functions holds s.
func (g Goroutine) Holds(s string) bool {
	for _, f := range g.Frames {
		if strings.Contains(f.Func, s) {
			return true
		}
	}
	return false
}

// Trimmed is the goroutine with the frames a reader needs: those of
// Kubernetes, the CRI client, gRPC's invoke, Prometheus's client and
// net/http's ServeHTTP, each function without its arguments, deepest
// first.
func (g Goroutine) Trimmed() string {
	var b strings.Builder
	b.WriteString(g.Header + "\n")
	args := regexp.MustCompile(`\([^()]*\)$`)
	for _, f := range g.Frames {
		fn := f.Func
		if strings.Contains(fn, "k8s.io/apimachinery/pkg/util/wait.") || strings.Contains(fn, "go-restful") || strings.Contains(fn, "otelrestful") {
			continue
		}
		keep := strings.Contains(fn, "k8s.io/") || strings.Contains(fn, "google.golang.org/grpc") ||
			strings.Contains(fn, "prometheus/client_golang") || strings.Contains(fn, "ServeHTTP") ||
			strings.HasPrefix(fn, "sync.") || strings.HasPrefix(fn, "internal/sync.") || strings.HasPrefix(fn, "created by")
		if !keep {
			continue
		}
		fn = args.ReplaceAllString(fn, "")
		fmt.Fprintf(&b, "  %s\n      %s\n", fn, shortFile(f.File))
	}
	return b.String()
}

// shortFile cuts a frame's file to the path from the module on.
func shortFile(f string) string {
	for _, m := range []string{"/k8s.io/", "/google.golang.org/", "/github.com/"} {
		if i := strings.LastIndex(f, m); i >= 0 {
			return f[i+1:]
		}
	}
	if i := strings.LastIndex(f, "/src/"); i >= 0 {
		return f[i+5:]
	}
	return f
}

// BlockedMetrics returns the dump's goroutines that wait on a CRI call
// for a kubelet endpoint (a metrics collector's, which an endpoint's
// Gather runs in a goroutine of its own), the endpoint handlers that
// wait in Gather for them, and the other goroutines that wait on a CRI
// call (the relist, the node status, the runtime's status check, ...).
func BlockedMetrics(text string) (collectors, gathers, others []Goroutine) {
	for _, g := range ParseGoroutines(text) {
		cri := g.Holds("cri-client") || g.Holds("cri-api") || g.Holds("grpc.invoke")
		switch {
		case cri && (g.Holds("metrics/collectors") || g.Holds("net/http")):
			collectors = append(collectors, g)
		case cri:
			others = append(others, g)
		case g.Holds("prometheus.(*Registry).Gather") && g.Holds("promhttp"):
			gathers = append(gathers, g)
		}
	}
	return collectors, gathers, others
}
