package main

import (
	"encoding/json"
	"maps"
	"os"

	"github.com/plegvet/plegvet/internal/suite"
)

// vetConfig is the part of go vet's per-package configuration (the .cfg
// file of the -vettool protocol) that says whether a package can matter.
type vetConfig struct {
	ImportPath string
	ImportMap  map[string]string // import path -> package path
	VetxOutput string            // where the package's facts go
	Stdout     string
}

// skipIrrelevantVet answers go vet for a package that cannot matter to
// any analyzer of the suite (suite.Matters: it neither declares gates or
// PLEG constructors nor imports what does): no parsing, no type-checking,
// an empty facts file (which the next package reads as "no facts"). The
// suite's tests hold that no analyzer reads facts of such a package. It
// returns false when the package must be analysed.
func skipIrrelevantVet(cfgFile string) bool {
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		return false
	}
	var cfg vetConfig
	if json.Unmarshal(data, &cfg) != nil || cfg.VetxOutput == "" {
		return false
	}
	if suite.Matters(cfg.ImportPath, maps.Values(cfg.ImportMap)) {
		return false
	}
	if os.WriteFile(cfg.VetxOutput, nil, 0o666) != nil {
		return false
	}
	if cfg.Stdout != "" {
		_ = os.WriteFile(cfg.Stdout, nil, 0o666)
	}
	return true
}
