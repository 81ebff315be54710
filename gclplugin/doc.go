// Package gclplugin makes plegvet a golangci-lint v2 module plugin: a
// custom linter named "plegvet", compiled into a golangci-lint binary,
// that runs plegvet's featuregate and pleg analyzers on a Kubernetes tree
// (a checkout, or a fork's) with the rest of a project's linters.
//
// # Building golangci-lint with plegvet
//
// A module plugin is compiled in, not loaded: build a golangci-lint whose
// main package imports this one. The tools/golangci-lint module of this
// repository is such a main package (golangci-lint v2.15.0), with its own
// go.mod so that golangci-lint's dependencies stay out of plegvet's:
//
//	git clone https://github.com/plegvet/plegvet
//	cd plegvet/tools/golangci-lint
//	go build -o /usr/local/bin/golangci-lint-plegvet .
//
// Its main.go is golangci-lint's own main (commands.Execute from
// github.com/golangci/golangci-lint/v2/pkg/commands) plus
//
//	import _ "github.com/plegvet/plegvet/gclplugin"
//
// so the same two lines in a project's own tools module (beside other
// plugins, as Kubernetes' hack/tools/golangci-lint does) work as well.
// golangci-lint's own `custom` command can build an equivalent binary
// from a .custom-gcl.yml whose plugin is module github.com/plegvet/plegvet,
// import github.com/plegvet/plegvet/gclplugin (plegvet's tests build the
// tools module instead).
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
// same analyzer under go vet (internal/suite lists them):
//
//	featuregate.rules               -featuregate.rules
//	featuregate.alphaDefaultExempt  -featuregate.alpha-default-exempt (a list, not a comma-separated string)
//	pleg.note                       -pleg.note
//	disable                         leaves an analyzer's findings out
//
// The settings are decoded strictly: an unknown or misspelt key, a value
// of the wrong type (such as rules: 1.30 unquoted, which YAML reads as the
// number 1.3), an unknown analyzer in disable, or a rules value that is not
// "auto" or a Kubernetes minor stops golangci-lint before it lints, with
// the key named:
//
//	plugin(plegvet): newPlugin plegvet settings: unknown key "pleg.notes" (known: ...)
//
// Disabling featuregate runs none of its checks; pleg still reads the
// gates' specs, through the facts-only gatefacts analyzer it requires.
// Disabling both analyzers is an error; remove plegvet from
// linters.enable instead.
//
// Findings read like
//
//	pkg/features/kube_features.go:24:3: featuregate: feature gate PrematureAlpha is Alpha but on by default at 1.36; Alpha gates must default to false (plegvet)
//
// with the analyzer's name before the message (the check's name is
// the diagnostic's category, which golangci-lint does not print), and a
// finding's related positions in the same file as further lines marked
// "(related information)". linters.exclusions and //nolint:plegvet apply
// as to any linter.
//
// The analyzers need type information (the plugin's load mode is
// "typesinfo"), so golangci-lint type-checks the tree's packages with the
// go command: run it where the tree builds (a Kubernetes checkout builds
// with its staging modules replaced in go.mod). The gates' facts flow from
// pkg/features to pkg/kubelet as under go vet.
package gclplugin
