package main

import (
	"encoding/json"
	"os"
	"strings"
)

// vetConfig is the part of go vet's per-package configuration (the .cfg
// file of the -vettool protocol) that says whether a package can matter.
type vetConfig struct {
	ImportPath string
	ImportMap  map[string]string // import path -> package path
	VetxOutput string            // where the package's facts go
	Stdout     string
}

// relevantPath reports whether a package can declare what plegvet reads
// or hands facts to those that do: the feature-gate API, a features
// package, the pleg package.
func relevantPath(p string) bool {
	return strings.HasSuffix(p, "k8s.io/component-base/featuregate") ||
		strings.HasSuffix(p, "/features") ||
		strings.HasSuffix(p, "/pkg/kubelet/pleg")
}

// skipIrrelevantVet answers go vet for a package that can neither declare
// gates or PLEG constructors nor use them: no parsing, no type-checking,
// an empty facts file (which the next package reads as "no facts"). Every
// fact plegvet exports is read by direct importers only, so a package
// that imports none of those packages has nothing to pass on. It returns
// false when the package must be analysed.
func skipIrrelevantVet(cfgFile string) bool {
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		return false
	}
	var cfg vetConfig
	if json.Unmarshal(data, &cfg) != nil || cfg.VetxOutput == "" {
		return false
	}
	if relevantPath(cfg.ImportPath) {
		return false
	}
	for _, pkg := range cfg.ImportMap {
		if relevantPath(pkg) {
			return false
		}
	}
	if os.WriteFile(cfg.VetxOutput, nil, 0o666) != nil {
		return false
	}
	if cfg.Stdout != "" {
		_ = os.WriteFile(cfg.Stdout, nil, 0o666)
	}
	return true
}
