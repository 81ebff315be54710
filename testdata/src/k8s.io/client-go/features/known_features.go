package features

import "k8s.io/apimachinery/pkg/util/version"

const (
	// A client gate, read with client-go's own types.
	ListInChunks Feature = "ListInChunks" // want ListInChunks:`gate ListInChunks \[1.34 Beta on\]`

	WatchFromCache Feature = "WatchFromCache" // want WatchFromCache:`gate WatchFromCache \[1.30 Alpha off, 1.33 Beta on\]`
)

var clientGates = map[Feature]VersionedSpecs{
	ListInChunks: {
		{Version: version.MustParse("1.34"), Default: true, PreRelease: Beta},
	},
	WatchFromCache: {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: Alpha},
		{Version: version.MustParse("1.33"), Default: true, PreRelease: Beta},
	},
}
