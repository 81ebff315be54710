// want package:"2 gates"

// Package features is a look-alike of a staging module's gate list, whose
// constants another package uses as keys.
package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

const (
	ServerSideApply featuregate.Feature = "ServerSideApply" // want ServerSideApply:`gate ServerSideApply \[1.16 GA on locked\]`

	WatchBookmarks featuregate.Feature = "WatchBookmarks" // want WatchBookmarks:`gate WatchBookmarks \[1.17 GA on\]`
)

var serverGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	ServerSideApply: {{Version: version.MustParse("1.16"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}},
	WatchBookmarks:  {{Version: version.MajorMinor(1, 17), Default: true, PreRelease: featuregate.GA}},
}
