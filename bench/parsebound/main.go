// Command parsebound is plegvet's benchmark floor: it parses the non-test Go files of pkg/features, pkg/kubelet and pkg/kubelet/pleg and reads the CRI api.proto of a checkout, and nothing else.
//
// With -answer it also parses the non-test Go files of the other packages
// whose syntax `plegvet report` reads on v1.37.2, a floor for the answer
// as it stands rather than for its three packages (issue 43): the
// packages runtimehang follows calls through (the CRI client, the stats
// providers, the kubelet configuration's defaults, the metrics, the
// collectors, the node status setters; internal/assemble/runtimehang.go)
// and the CRI API's Go package (runtime/v1, whose declarations the pleg
// package's signatures need). The list is fixed, as v1.37.2 lays them out;
// a package a release lacks is skipped. The CRI API is parsed without its
// comments, as plegvet's loader parses a package read for its
// declarations, but with its function bodies: the floor parses what the
// answer is read from, whatever plegvet skips of it. Left out: the
// packages plegvet parses for their declarations alone (the CRI API's
// service interfaces, pkg/kubelet/container, the staging modules' feature
// lists; about 140 KB).
//
// Usage: parsebound [-answer] CHECKOUT
package main

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

// answerDirs are the packages -answer parses besides the three, and how.
var answerDirs = []struct {
	dir  string
	mode parser.Mode
}{
	{"staging/src/k8s.io/cri-client/pkg", parser.ParseComments | parser.SkipObjectResolution},
	{"pkg/kubelet/stats", parser.ParseComments | parser.SkipObjectResolution},
	{"pkg/kubelet/apis/config/v1beta1", parser.ParseComments | parser.SkipObjectResolution},
	{"pkg/kubelet/metrics", parser.ParseComments | parser.SkipObjectResolution},
	{"pkg/kubelet/metrics/collectors", parser.ParseComments | parser.SkipObjectResolution},
	{"pkg/kubelet/nodestatus", parser.ParseComments | parser.SkipObjectResolution},
	{"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1", parser.SkipObjectResolution},
}

func main() {
	answer := flag.Bool("answer", false, "also parse the other packages whose syntax plegvet report reads (runtimehang's, the CRI API's Go package)")
	flag.Usage = func() { fmt.Fprintln(os.Stderr, "usage: parsebound [-answer] CHECKOUT") }
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	root := flag.Arg(0)
	fset := token.NewFileSet()
	files, bytes := 0, 0
	parseDir := func(dir string, mode parser.Mode, must bool) {
		ents, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil && !must && os.IsNotExist(err) {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "parsebound:", err)
			os.Exit(1)
		}
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			name := filepath.Join(root, dir, n)
			src, err := os.ReadFile(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "parsebound:", err)
				os.Exit(1)
			}
			if _, err := parser.ParseFile(fset, name, src, mode); err != nil {
				fmt.Fprintln(os.Stderr, "parsebound:", err)
				os.Exit(1)
			}
			files++
			bytes += len(src)
		}
	}
	for _, dir := range []string{"pkg/features", "pkg/kubelet", "pkg/kubelet/pleg"} {
		// The same mode as plegvet's source loader (internal/load/srcload).
		parseDir(dir, parser.ParseComments|parser.SkipObjectResolution, true)
	}
	if *answer {
		for _, d := range answerDirs {
			parseDir(d.dir, d.mode, false)
		}
	}
	proto, err := os.ReadFile(filepath.Join(root, "staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "parsebound:", err)
		os.Exit(1)
	}
	fmt.Printf("parsebound: %d Go files (%d bytes) parsed, api.proto %d bytes read\n", files, bytes, len(proto))
}
