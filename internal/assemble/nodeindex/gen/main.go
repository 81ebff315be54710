// Command gen writes nodeindex.jsonl, plegvet's index of node-source
// answers, computing each release's from its source with the go command
// (LoadNodeSource); run from the module's root:
//
//	go generate                                   # the releases it lacks
//	go run ./internal/nodeindex/gen -all          # every release again
//	go run ./internal/nodeindex/gen -all v1.36.1  # this one again
//	go run ./internal/nodeindex/gen v1.30         # what it lacks of 1.30
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/assemble/nodeindex"
)

func main() {
	all := flag.Bool("all", false, "compute every release again")
	file := flag.String("o", "nodeindex.jsonl", "the index to update")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := nodeindex.Update(ctx, nodeindex.Options{File: *file, All: *all, Releases: flag.Args(), Progress: os.Stderr, First: plegvet.NodeIndexFirst, Compute: entry})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_nodeindex:", err)
		os.Exit(1)
	}
}

// entry is a release's line of the index, computed from its source: the
// NodeSource, encoded, without From (the reader sets it).
func entry(ctx context.Context, release string) (json.RawMessage, error) {
	s, err := plegvet.LoadNodeSource(ctx, plegvet.Options{Kubernetes: release, SkipIndex: true}, release)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", release, err)
	}
	if !s.Source.Load.Complete() {
		return nil, fmt.Errorf("%s: the source was not read whole (problems %q, unfollowed %q): not an index entry", release, s.Source.Load.Problems, s.Source.Load.Unfollowed)
	}
	s.Source.From = ""
	return json.Marshal(s)
}
