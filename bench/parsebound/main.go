// Command parsebound is plegvet's benchmark floor: it parses the non-test Go files of pkg/features, pkg/kubelet and pkg/kubelet/pleg and reads the CRI api.proto of a checkout, and nothing else.
//
// Usage: parsebound CHECKOUT
package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: parsebound CHECKOUT")
		os.Exit(2)
	}
	root := os.Args[1]
	fset := token.NewFileSet()
	files, bytes := 0, 0
	for _, dir := range []string{"pkg/features", "pkg/kubelet", "pkg/kubelet/pleg"} {
		ents, err := os.ReadDir(filepath.Join(root, dir))
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
			// The same mode as plegvet's source loader (internal/load/srcload).
			if _, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution); err != nil {
				fmt.Fprintln(os.Stderr, "parsebound:", err)
				os.Exit(1)
			}
			files++
			bytes += len(src)
		}
	}
	proto, err := os.ReadFile(filepath.Join(root, "staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "parsebound:", err)
		os.Exit(1)
	}
	fmt.Printf("parsebound: %d Go files (%d bytes) parsed, api.proto %d bytes read\n", files, bytes, len(proto))
}
