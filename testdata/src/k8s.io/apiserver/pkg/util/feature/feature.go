// Package feature is a test double holding the process-wide gate.
package feature

import "k8s.io/component-base/featuregate"

var DefaultMutableFeatureGate featuregate.MutableVersionedFeatureGate

var DefaultFeatureGate featuregate.FeatureGate = DefaultMutableFeatureGate
