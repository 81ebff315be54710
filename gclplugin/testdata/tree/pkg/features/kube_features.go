// Package features declares the feature gates of plegvet's golangci-lint
// fixture: one kept as upstream keeps it, one that breaks a rule.
package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	// EventedPLEG makes the kubelet follow the runtime's event stream.
	EventedPLEG featuregate.Feature = "EventedPLEG"

	// PrematureAlpha is an Alpha gate switched on by default: the
	// finding the fixture exists for.
	PrematureAlpha featuregate.Feature = "PrematureAlpha"
)

var kubeletGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	EventedPLEG: {
		{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},
	},
	PrematureAlpha: {
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.Alpha},
	},
}
