// Package user tests a gate that initassign sets in init: the gate's fact
// must reach it.
package user

import (
	"gateshapes/initassign"

	"k8s.io/component-base/featuregate"
)

func Evented(g featuregate.FeatureGate) bool { return g.Enabled(initassign.EventedPLEG) }
