// Command gen writes nodeindex.jsonl, plegvet's index of node-source
// answers, computing each release's from its source with the go command
// (LoadNodeSource); run from the module's root:
//
//	go generate                                            # the releases it lacks
//	go run ./internal/assemble/nodeindex/gen -all          # every release again
//	go run ./internal/assemble/nodeindex/gen -all v1.36.1  # this one again
//	go run ./internal/assemble/nodeindex/gen v1.30         # what it lacks of 1.30
//
// Progress goes to stderr, a line per release: done of all, the entry's
// size, the bytes the go command fetched so far, the time left. The
// index file is rewritten after each release, and each entry computed is
// kept in plegvet's answer cache (PLEGVET_CACHE) under this program's
// build ID (which the index file does not enter): a run stopped at any point and started again goes on where it
// stopped, -all included, and a rebuilt generator computes afresh. The
// output is the same bytes every run: entries in version order, no time
// in them.
//
// Unless GOTOOLCHAIN is set, the go command runs with GOTOOLCHAIN=auto:
// the newest pre-release (v1.38.0-beta.0) may need a newer Go than this
// one, which the go command then fetches. With GOTOOLCHAIN=local such a
// pre-release is left out of the index, a line saying why.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/assemble/nodeindex"
	"github.com/plegvet/plegvet/internal/load/answercache"
)

func main() {
	all := flag.Bool("all", false, "compute every release again (entries this build computed before are taken from the answer cache)")
	file := flag.String("o", "nodeindex.jsonl", "the index to update")
	flag.Parse()
	if _, set := os.LookupEnv("GOTOOLCHAIN"); !set {
		os.Setenv("GOTOOLCHAIN", "auto") // a pre-release may need a newer Go
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := nodeindex.Update(ctx, nodeindex.Options{File: *file, All: *all, Releases: flag.Args(), Progress: os.Stderr,
		Fetched: fetched(), First: nodeindex.First, Compute: entry})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen_nodeindex:", err)
		os.Exit(1)
	}
}

// entry is a release's line of the index, computed from its source: the
// NodeSource, encoded, without From (the reader sets it); or the line
// this build computed before, from the answer cache.
func entry(ctx context.Context, release string) (json.RawMessage, error) {
	dir, useCache := answercache.Dir()
	key, keyed := answercache.Key("nodeindex entry", release)
	var line json.RawMessage
	if useCache && keyed && answercache.Get(dir, key, &line) {
		return line, nil
	}
	// Not the root package's LoadNodeSource: it embeds the index, so this
	// program's build ID (the cache's key) would change with every entry
	// written, and a stopped run would find none of its entries again.
	s, err := assemble.LoadNodeSource(ctx, assemble.Options{Kubernetes: release, SkipIndex: true}, release)
	if err == nil {
		// A stop while the report was read leaves the entry without its
		// ladder and hang, not an error: such an entry is none.
		err = ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", release, err)
	}
	if !s.Source.Load.Complete() {
		return nil, fmt.Errorf("%s: the source was not read whole (problems %q, unfollowed %q): not an index entry", release, s.Source.Load.Problems, s.Source.Load.Unfollowed)
	}
	s.Source.From = ""
	line, err = json.Marshal(s)
	if err == nil && useCache && keyed {
		_ = answercache.Put(dir, key, line) // a cache not written only costs a later run time
	}
	return line, err
}

// fetched measures what the go command fetched since the run began: the
// growth of the module download cache's zip files (a walk of a few
// thousand files, some tens of milliseconds). nil when the go command
// does not say where that cache is.
func fetched() func() int64 {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	root := strings.TrimSpace(string(out))
	if err != nil || root == "" {
		return nil
	}
	download := filepath.Join(root, "cache", "download")
	size := func() int64 {
		var n int64
		_ = filepath.WalkDir(download, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".zip") {
				if info, err := d.Info(); err == nil {
					n += info.Size()
				}
			}
			return nil
		})
		return n
	}
	before := size()
	return func() int64 { return size() - before }
}
