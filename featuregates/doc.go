// Package featuregates extracts Kubernetes feature gates from type-checked
// Go syntax: every gate a package declares in its feature maps, with the
// history of its specs, its dependencies and the position of each.
//
// Feature maps are recognised by their types, not their names: a
// composite literal of type map[featuregate.Feature]featuregate.FeatureSpec
// (the older, unversioned format), map[featuregate.Feature]featuregate.VersionedSpecs
// (the versioned format) or map[featuregate.Feature][]featuregate.Feature
// (dependencies), where featuregate is k8s.io/component-base/featuregate,
// found anywhere in the package's files: in a var declaration, returned
// from a function, or beside an empty map of the other format. Index
// assignments into a feature map variable (m[EventedPLEG] = spec, in init
// or any function; the variable found by its object and type) are
// entries too.
//
// What cannot be read is said, with its position, in Result.Problems and
// Map.Unresolved: an entry whose key is not a constant, a feature map
// variable built by a call of another package or filled by maps.Copy from
// one. A gate whose spec list is empty or built by a call has no specs
// and says why in Gate.Unresolved: Gate.Specs may be empty.
//
// Extract works on fully typed packages and on partially typed ones (a
// release download type-checked from source with its imports stubbed): a
// key or field whose value cannot be resolved to a constant is reported as
// unresolved with the reason, never guessed.
package featuregates
