// Package metrics is a look-alike of the kubelet's metrics registration.
package metrics

import (
	"k8s.io/component-base/metrics/legacyregistry"

	"hangshapes/common/pkg/kubelet/collectors"
)

// Register registers the kubelet's metrics and the collectors given.
func Register(cs ...collectors.Collector) {
	for _, c := range cs {
		legacyregistry.CustomMustRegister(c)
	}
}

// RegisterCollectors registers collectors alone.
func RegisterCollectors(cs ...collectors.Collector) {
	for _, c := range cs {
		legacyregistry.CustomMustRegister(c)
	}
}

// RegisterElsewhere keeps collectors in a registry of its own.
func RegisterElsewhere(cs ...collectors.Collector) {}
