// want package:"7 gates"

// Package unversioned is shaped like pkg/features before v1.31: one map of
// FeatureSpec, fields omitted, keys of this and another package.
package unversioned

import (
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"
)

const (
	EventedPLEG featuregate.Feature = "EventedPLEG" // want EventedPLEG:`gate EventedPLEG \[Alpha off\]`

	ExecProbeTimeout featuregate.Feature = "ExecProbeTimeout" // want ExecProbeTimeout:`gate ExecProbeTimeout \[GA on locked\]`

	OldThing featuregate.Feature = "OldThing" // want OldThing:`gate OldThing \[Deprecated off\]`

	NotYet featuregate.Feature = "NotYet" // want NotYet:`gate NotYet \[PreAlpha off\]`
)

var defaultKubernetesFeatureGates = map[featuregate.Feature]featuregate.FeatureSpec{
	EventedPLEG:      {Default: false, PreRelease: featuregate.Alpha},
	ExecProbeTimeout: {Default: true, PreRelease: featuregate.GA, LockToDefault: true}, // remove later
	OldThing:         {PreRelease: featuregate.Deprecated},
	NotYet:           {PreRelease: featuregate.PreAlpha},

	featuregate.Feature("InlineName"): {Default: true, PreRelease: featuregate.Beta},
	(Parenthesised):                   {Default: true, PreRelease: featuregate.Beta},

	// inherited from the generic API server
	genericfeatures.WatchBookmarks: {Default: true, PreRelease: featuregate.GA},
}

const Parenthesised = "Parenthesised" // want Parenthesised:`gate Parenthesised \[Beta on\]`
