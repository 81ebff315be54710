// Package names declares the undefinedkey fixture's gate names, but not
// every name its feature map uses.
package names

import "k8s.io/component-base/featuregate"

const Declared featuregate.Feature = "Declared"
