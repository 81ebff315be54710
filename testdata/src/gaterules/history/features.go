// want package:"13 gates"

// Package history breaks each of component-base's rules on spec histories
// once (rules as of v1.35: the newest version named here is 1.36).
package history

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	"NoVersion": {
		{Default: false, PreRelease: featuregate.Alpha}, // want `feature gate NoVersion: spec has no Version`
	},
	"Patch": {
		{Version: version.MustParse("1.30.2"), Default: false, PreRelease: featuregate.Alpha}, // want `Version 1.30.2 names a patch release; use 1.30`
	},
	"BornDead": {
		{Version: version.MustParse("1.31"), Default: false, PreRelease: featuregate.Deprecated}, // want `feature gate BornDead starts Deprecated at 1.31; add a 1.0 spec`
	},
	"Backwards": {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.29"), Default: true, PreRelease: featuregate.Beta}, // want `specs go back from 1.30 to 1.29`
	},
	"Twice": {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta}, // want `two specs at version 1.30`
	},
	"StageAtOnce": {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.30")}, // want `changes stage at one version 1.30 \(Alpha -> Beta\)`
	},
	"Repeat": {
		{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.31"), Default: true, PreRelease: featuregate.Beta}, // want `the spec at 1.31 repeats the one at 1.30`
	},
	"Unlocked": {
		{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
		{Version: version.MustParse("1.32"), Default: false, PreRelease: featuregate.Deprecated}, // want `Unlocked is unlocked at 1.32`
	},
	"Resurrected": {
		{Version: version.MustParse("1.0"), Default: true, PreRelease: featuregate.GA},
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Deprecated},
		{Version: version.MustParse("1.31"), Default: true, PreRelease: featuregate.GA}, // want `returns from Deprecated to GA at 1.31`
	},
	"Regressed": {
		{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.31"), Default: false, PreRelease: featuregate.Alpha}, // want `Regressed regresses to Alpha at 1.31`
	},
	"LoneCompat": {
		{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.30")}, // want `MinCompatibilityVersion 1.30 without a preceding spec at Version 1.30`
	},
	"LateCompat": {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.30"), Default: true, PreRelease: featuregate.Beta, MinCompatibilityVersion: version.MustParse("1.31")}, // want `MinCompatibilityVersion 1.31 is later than Version 1.30`
	},
	"Fine": {
		{Version: version.MustParse("1.34"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	},
}
