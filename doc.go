// Package plegvet answers, from Kubernetes source and with file:line
// evidence, which PLEG (pod lifecycle event generator) a kubelet runs and
// why its relist loop stays: the EventedPLEG feature gate, the relist
// periods each mode configures, and the CRI event stream behind it.
//
// Each function here is one call that loads a tree (a checkout, or a
// release fetched with the go command), runs plegvet's extractors and
// analyzers over it, and returns typed results whose JSON form is stable
// (every result carries SchemaVersion). Paths in results are relative to
// the checkout root, with '/', as a user types them.
//
// Trees are loaded from source: the packages the answer needs are parsed
// and type-checked in memory, package time and the feature-gate API from
// built-in models of them, every other import stubbed. The answer never
// waits for the dependency graph to compile, and Source.Load says what was
// modelled and stubbed.
package plegvet
