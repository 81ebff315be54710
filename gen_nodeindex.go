//go:build ignore

// gen_nodeindex writes nodeindex.jsonl, plegvet's index of node-source
// answers, computing each release's from its source with the go command:
//
//	go generate                            # the releases it lacks
//	go run gen_nodeindex.go -all           # every release again
//	go run gen_nodeindex.go -all v1.36.1   # this one again
//	go run gen_nodeindex.go v1.30          # what it lacks of 1.30
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/plegvet/plegvet"
)

func main() {
	all := flag.Bool("all", false, "compute every release again")
	file := flag.String("o", "nodeindex.jsonl", "the index to update")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := plegvet.UpdateNodeIndex(ctx, plegvet.NodeIndexOptions{File: *file, All: *all, Releases: flag.Args(), Progress: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_nodeindex:", err)
		os.Exit(1)
	}
}
