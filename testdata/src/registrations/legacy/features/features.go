// want package:"2 gates"

// Package features is shaped like a staging module whose gates are still
// in the unversioned format: from v1.31 component-base keeps each as one
// spec at version 0.0.
package features

import (
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

const (
	// Relisted by kube/features in its versioned map, at 1.28: not the
	// spec at 0.0 registered here.
	StructuredLogs featuregate.Feature = "StructuredLogs" // want StructuredLogs:`gate StructuredLogs \[Beta on\]`

	// Relisted by kube/features in its versioned map at 0.0: the same.
	FlatLogs featuregate.Feature = "FlatLogs" // want FlatLogs:`gate FlatLogs \[GA on\]`
)

func init() {
	_ = utilfeature.DefaultMutableFeatureGate.Add(logGates)
}

var logGates = map[featuregate.Feature]featuregate.FeatureSpec{
	StructuredLogs: {Default: true, PreRelease: featuregate.Beta}, // want `feature gate "StructuredLogs" with different spec already exists: \[\{true false BETA 0.0 <nil>\}\]: registered by registrations/legacy/features, then by registrations/kube/features with \[\{true false BETA 1.28 <nil>\}\]; component-base refuses the second`
	FlatLogs:       {Default: true, PreRelease: featuregate.GA},
}
