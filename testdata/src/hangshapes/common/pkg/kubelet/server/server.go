// Package server is a look-alike of the kubelet's HTTP server: the
// paths besides /metrics that ask the runtime.
package server

import (
	"net/http"

	"k8s.io/component-base/metrics"

	"hangshapes/common/pkg/kubelet/collectors"
	"hangshapes/common/pkg/kubelet/server/stats"
)

const (
	resourceMetricsPath = "/metrics/resource"
	statsPath           = "/stats/"
)

// Server serves the kubelet's paths.
type Server struct {
	analyzer stats.ResourceAnalyzer
	mux      *http.ServeMux
	routes   []*stats.Routes
}

// NewServer serves what analyzer gives.
func NewServer(analyzer stats.ResourceAnalyzer) *Server {
	s := &Server{analyzer: analyzer, mux: http.NewServeMux()}
	s.installHandlers()
	return s
}

func (s *Server) add(r *stats.Routes) { s.routes = append(s.routes, r) }

func (s *Server) installHandlers() {
	s.add(stats.CreateHandlers(statsPath, s.analyzer))
	reg := metrics.NewKubeRegistry()
	reg.CustomMustRegister(collectors.NewResourceMetricsCollector(s.analyzer))
	s.mux.Handle(resourceMetricsPath, metrics.HandlerFor(reg))
}
