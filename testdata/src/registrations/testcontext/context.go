// want package:"1 gates"

// Package testcontext registers a gate of the staging-like package with
// a FeatureGate its caller hands it, as k8s.io/apiserver's admission
// policy test context did in v1.30: a map built for a call, not the
// package's gates, so not compared with the staging package's.
package testcontext

import (
	"k8s.io/component-base/featuregate"
	serverfeatures "registrations/staging/features"
)

func Register(fg featuregate.MutableVersionedFeatureGate) error {
	return fg.Add(map[featuregate.Feature]featuregate.FeatureSpec{
		serverfeatures.WatchCache: {Default: true, PreRelease: featuregate.GA},
	})
}
