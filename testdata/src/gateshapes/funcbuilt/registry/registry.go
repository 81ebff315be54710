// Package registry hands out a feature map from a function, so the
// importer cannot see its entries.
package registry

import "k8s.io/component-base/featuregate"

func Gates() map[featuregate.Feature]featuregate.VersionedSpecs { return nil }
