// want package:"3 gates"

// Package emptyspecs has versioned gates whose spec lists hold no spec
// plegvet can read: they are gates with no specs, said to be unresolved.
package emptyspecs

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	Empty  featuregate.Feature = "Empty"  // want Empty:`gate Empty \[\] unresolved: the spec list is empty`
	Called featuregate.Feature = "Called" // want Called:`gate Called \[\] unresolved: spec history is built by the call history`
	Plain  featuregate.Feature = "Plain"  // want Plain:`gate Plain \[1.35 Beta on\]$`
)

func history() featuregate.VersionedSpecs {
	return featuregate.VersionedSpecs{{Version: version.MustParse("1.35"), PreRelease: featuregate.Alpha}}
}

var gates = map[featuregate.Feature]featuregate.VersionedSpecs{
	Empty:  {},
	Called: history(),
	Plain:  {{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta}},
}

// The specs of Empty and Called are not known: nothing to compare Plain's
// with.
var dependencies = map[featuregate.Feature][]featuregate.Feature{
	Plain: {Empty, Called},
}
