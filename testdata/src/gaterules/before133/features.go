// want package:"2 gates"

// Package before133 names no version after 1.32, so component-base's
// history rules (from v1.33) do not apply yet: what v1.32 shipped is
// legal there, and plegvet must not report it.
package before133

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	"BornDead": {
		{Version: version.MustParse("1.31"), Default: false, PreRelease: featuregate.Deprecated},
	},
	"Same": {
		{Version: version.MustParse("1.32"), Default: true, PreRelease: featuregate.Beta},
		{Version: version.MustParse("1.32"), Default: true, PreRelease: featuregate.Beta},
	},
}
