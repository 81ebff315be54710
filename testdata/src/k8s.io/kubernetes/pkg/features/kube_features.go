// want package:"5 gates"

// Package features is a small look-alike of Kubernetes' pkg/features in
// the newer, versioned format, written for plegvet's tests.
package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	genericfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
)

const (
	// A gate that listens to the runtime's event stream.
	EventedPLEG featuregate.Feature = "EventedPLEG" // want EventedPLEG:`gate EventedPLEG \[1.26 Alpha off\]`

	// The constant's name and the gate's name differ.
	QuotaPeriod featuregate.Feature = "CustomQuotaPeriod" // want QuotaPeriod:`gate CustomQuotaPeriod \[1.12 Alpha off\]`

	// An untyped constant is a key too.
	RelistOnDemand = "RelistOnDemand" // want RelistOnDemand:`gate RelistOnDemand \[1.30 Alpha off, 1.32 Beta on, 1.34 GA on locked\]`

	// A conversion in the declaration.
	WatchdogNotify = featuregate.Feature("WatchdogNotify") // want WatchdogNotify:`gate WatchdogNotify \[1.0 GA on, 1.33 Deprecated off\]`
)

func init() {
	_ = utilfeature.DefaultMutableFeatureGate.AddVersioned(defaultVersionedKubernetesFeatureGates)
	_ = utilfeature.DefaultMutableFeatureGate.AddDependencies(defaultKubernetesFeatureGateDependencies)
}

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	EventedPLEG: {
		{Version: version.MustParse("1.26"), Default: false, PreRelease: featuregate.Alpha},
	},
	QuotaPeriod: {
		{Version: version.MustParse("1.12"), Default: false, PreRelease: featuregate.Alpha},
	},
	RelistOnDemand: {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.32"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MajorMinor(1, 34), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	},
	WatchdogNotify: {
		{Version: version.MustParse("1.0"), Default: true, PreRelease: featuregate.GA},
		{Version: version.MustParse("1.33"), Default: false, PreRelease: featuregate.Deprecated},
	},
	genericfeatures.WatchBookmarks: {
		{Version: version.MustParse("1.17"), Default: true, PreRelease: featuregate.GA},
	},
}

var defaultKubernetesFeatureGateDependencies = map[featuregate.Feature][]featuregate.Feature{
	EventedPLEG:                    {RelistOnDemand},
	QuotaPeriod:                    {},
	RelistOnDemand:                 {},
	WatchdogNotify:                 {},
	genericfeatures.WatchBookmarks: {featuregate.Feature(genericfeatures.ServerSideApply)},
}
