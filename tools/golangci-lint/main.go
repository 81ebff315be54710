// Command golangci-lint is golangci-lint v2 with plegvet's module plugin
// compiled in: the "plegvet" custom linter of a .golangci.yml (type
// "module") resolves to github.com/plegvet/plegvet/gclplugin.
//
// Build it from this directory:
//
//	go build -o /tmp/golangci-lint .
//
// This module has its own go.mod so that golangci-lint's dependencies stay
// out of plegvet's; it uses plegvet from the enclosing checkout.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	_ "github.com/plegvet/plegvet/gclplugin" // registers the "plegvet" module plugin
)

const golangciModule = "github.com/golangci/golangci-lint/v2"

func main() {
	if err := commands.Execute(buildInfo()); err != nil {
		fmt.Fprintf(os.Stderr, "golangci-lint: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}

// buildInfo names the golangci-lint release this binary was built from,
// for `golangci-lint version`, with plegvet's module version beside it.
func buildInfo() commands.BuildInfo {
	info := commands.BuildInfo{Version: "unknown", Commit: "unknown", Date: "unknown", GoVersion: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	info.GoVersion = bi.GoVersion
	plegvet := "(devel)"
	for _, dep := range bi.Deps {
		switch dep.Path {
		case golangciModule:
			info.Version = strings.TrimPrefix(dep.Version, "v")
		case "github.com/plegvet/plegvet":
			switch r := dep.Replace; {
			case r != nil && (strings.HasPrefix(r.Path, ".") || filepath.IsAbs(r.Path)):
				plegvet = "from " + r.Path // a local checkout
			case r != nil:
				plegvet = r.Path + " " + r.Version
			case dep.Version != "":
				plegvet = dep.Version
			}
		}
	}
	info.Version += " with plegvet " + plegvet
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.Date = s.Value
		}
	}
	return info
}
