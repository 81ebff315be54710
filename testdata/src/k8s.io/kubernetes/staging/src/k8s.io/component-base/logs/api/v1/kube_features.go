// Package v1 is a look-alike of a staging module's logging options, written
// for plegvet's tests: a gate list of its own, returned by a function, which
// Kubernetes' feature list holds beside pkg/features' gates.
package v1

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	// TracedLogLines adds a trace id to every log line.
	TracedLogLines featuregate.Feature = "TracedLogLines"
)

func logGates() map[featuregate.Feature]featuregate.VersionedSpecs {
	return map[featuregate.Feature]featuregate.VersionedSpecs{
		TracedLogLines: {
			{Version: version.MustParse("1.29"), Default: false, PreRelease: featuregate.Alpha},
			{Version: version.MustParse("1.33"), Default: true, PreRelease: featuregate.Beta},
		},
	}
}
