// want package:"2 gates"

// Package mixed is shaped like pkg/features in v1.32: the older map left
// empty in one file, the gates in a versioned map in another.
package mixed

import "k8s.io/component-base/featuregate"

const (
	EventedPLEG featuregate.Feature = "EventedPLEG" // want EventedPLEG:`gate EventedPLEG \[1.26 Alpha off\]`

	KubeletTracing featuregate.Feature = "KubeletTracing" // want KubeletTracing:`gate KubeletTracing \[1.25 Alpha off, 1.27 Beta on\]`
)

var defaultKubernetesFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{}
