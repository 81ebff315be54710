package stats

import (
	"context"
	"net/http"

	kstats "hangshapes/common/pkg/kubelet/stats"
)

// Summary is the node's numbers at one moment.
type Summary struct{ Pods []kstats.PodStats }

// SummaryProvider builds summaries, whole or of CPU and memory alone.
type SummaryProvider interface {
	Get(ctx context.Context, fresh bool) (*Summary, error)
	GetCPUAndMemoryStats(ctx context.Context) (*Summary, error)
}

// ResourceAnalyzer is what the server is handed: summaries, and more.
type ResourceAnalyzer interface {
	SummaryProvider
}

// NewResourceAnalyzer builds summaries from p's stats.
func NewResourceAnalyzer(p Provider) ResourceAnalyzer {
	return &resourceAnalyzer{SummaryProvider: &summarizer{stats: p}}
}

type resourceAnalyzer struct {
	SummaryProvider
}

type summarizer struct {
	stats Provider
}

func (s *summarizer) Get(ctx context.Context, fresh bool) (*Summary, error) {
	pods, err := s.stats.ListPodStats(ctx)
	return &Summary{Pods: pods}, err
}

func (s *summarizer) GetCPUAndMemoryStats(ctx context.Context) (*Summary, error) {
	pods, err := s.stats.ListPodStats(ctx)
	return &Summary{Pods: pods}, err
}

// Routes is what CreateHandlers hands the server: the paths under root,
// each with the function answering it.
type Routes struct {
	Root string
	To   map[string]http.HandlerFunc
}

type handler struct {
	summary SummaryProvider
}

// CreateHandlers answers the paths under root from summary.
func CreateHandlers(root string, summary SummaryProvider) *Routes {
	h := &handler{summary}
	rs := &Routes{Root: root, To: map[string]http.HandlerFunc{}}
	for _, r := range []struct {
		sub string
		to  http.HandlerFunc
	}{
		{"/summary", h.handleSummary},
	} {
		rs.To[r.sub] = r.to
	}
	return rs
}

func (h *handler) handleSummary(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("only_cpu_and_memory") == "true" {
		h.summary.GetCPUAndMemoryStats(r.Context())
		return
	}
	h.summary.Get(r.Context(), false)
}
