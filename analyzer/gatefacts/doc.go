// Package gatefacts defines a facts-only Analyzer that reads a package's
// Kubernetes feature gates and exports them as facts, for the analyzers
// that check gates (featuregate) or read them (pleg).
//
// # Analyzer gatefacts
//
// gatefacts: read feature gates and export their specs as facts
//
// The gatefacts analyzer finds every feature map in a package by its type
// (map[featuregate.Feature]featuregate.FeatureSpec, ...VersionedSpecs,
// and dependency maps map[featuregate.Feature][]featuregate.Feature, from
// k8s.io/component-base/featuregate), and reads the entries of their
// literals and the index assignments into them (m[EventedPLEG] = ..., in
// init or any function). It exports a GateFact on each gate constant the
// package declares, so that analyzers of importing packages see, at
// Enabled(features.EventedPLEG), the gate's stage and default; and a
// PackageGates fact naming every gate of the package. Each fact also
// records where the gate's entry is (file, offset, line and column, since
// a token.Pos means nothing in another package's FileSet) and the map
// holding it, so that an importer that registers the gate again can
// report a conflict at both entries (featuregate's
// conflicting-registration), under go vet too.
//
// Its result is what the package declares and the gates of other packages
// it uses, with their facts. It reports nothing: the checks are the
// featuregate analyzer's, so that running pleg alone checks no gate.
//
// A gate whose name or specs cannot be resolved to constants (partially
// typed source, a spec list built by a function call or empty) is
// exported with what is known, its GateFact saying why.
package gatefacts
