// Package metrics is a look-alike of component-base's registries: one
// a server keeps for itself, and the handler serving it.
package metrics

import "net/http"

// KubeRegistry gathers the collectors registered with it.
type KubeRegistry struct{ collectors []any }

// NewKubeRegistry is an empty registry.
func NewKubeRegistry() *KubeRegistry { return &KubeRegistry{} }

// CustomMustRegister adds collectors.
func (r *KubeRegistry) CustomMustRegister(cs ...any) { r.collectors = append(r.collectors, cs...) }

// HandlerFor serves r's collectors, gathered on each request.
func HandlerFor(r *KubeRegistry) http.Handler {
	return http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
}
