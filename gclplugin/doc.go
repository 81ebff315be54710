// Package gclplugin makes plegvet a golangci-lint v2 module plugin: a
// custom linter named "plegvet", compiled into a golangci-lint binary,
// that runs plegvet's featuregate and pleg analyzers on a Kubernetes tree
// (a checkout, or a fork's) with the rest of a project's linters.
//
// # Building golangci-lint with plegvet
//
// A module plugin is compiled in, not loaded: build a golangci-lint whose
// main package imports this one, as the tools/golangci-lint module of this
// repository does (golangci-lint v2.15.0, in a module of its own so that
// golangci-lint's dependencies stay out of plegvet's):
//
//	cd tools/golangci-lint    # in a clone of github.com/plegvet/plegvet
//	go build -o /usr/local/bin/golangci-lint-plegvet .
//
// A project's own tools module does the same with
//
//	import _ "github.com/plegvet/plegvet/gclplugin"
//
// and golangci-lint's `custom` command can build an equivalent binary
// (docs/commands/golangci-lint.md says how).
//
// # Configuration
//
// In .golangci.yml (version 2), enable plegvet and declare it as a module
// plugin; its settings are optional, and the ones below are the defaults:
//
//	version: "2"
//	linters:
//	  default: none          # or keep your linters and add plegvet
//	  enable:
//	    - plegvet
//	  settings:
//	    custom:
//	      plegvet:
//	        type: module
//	        description: Kubernetes feature gates and the kubelet's PLEG relist safety net
//	        original-url: https://github.com/plegvet/plegvet
//	        settings:
//	          featuregate:
//	            rules: auto                 # or a minor, quoted: "1.33"
//	            alphaDefaultExempt:         # replaces the default list; [] exempts none
//	              - WindowsHostNetwork
//	          pleg:
//	            note: false                 # true: report the informational gate-note
//	          disable: []                   # "featuregate" and/or "pleg"
//
// Each setting is a field of its analyzer's Config and the flag of the
// same analyzer under go vet (internal/analysis/suite lists them); docs/commands/golangci-lint.md's
// "golangci-lint" section has the table, and how findings print. The
// settings are decoded strictly (DecodeSettings): a misspelt key, a value
// of the wrong type (rules: 1.30 unquoted is the number 1.3 to YAML), an
// unknown analyzer in disable, or a bad rules value stops golangci-lint
// before it lints, with the key named. Disabling featuregate runs none of
// its checks; pleg still reads the gates' specs, through the facts-only
// gatefacts analyzer it requires. Disabling both analyzers is an error.
//
// The analyzers need type information (the plugin's load mode is
// "typesinfo"), so golangci-lint type-checks the tree's packages with the
// go command: run it where the tree builds (a Kubernetes checkout builds
// with its staging modules replaced in go.mod). The gates' facts flow from
// pkg/features to pkg/kubelet as under go vet.
package gclplugin
