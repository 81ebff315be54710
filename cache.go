package plegvet

import (
	"fmt"
	"go/build"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/internal/answercache"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/internal/tree"
)

// DefaultCacheDir is the cache the command line uses for Options.CacheDir:
// $PLEGVET_CACHE, or plegvet under the user's cache directory; "" when the
// cache is off (PLEGVET_CACHE=off) or there is no such directory.
func DefaultCacheDir() string {
	dir, _ := answercache.Dir() // "" when off
	return dir
}

// cached answers a question about a fetched release from opts.CacheDir,
// or computes the answer and keeps it there. The key is the running
// program's build ID, the question and every module's go.sum hash: the
// same program, asked the same of the same content, answers the same, so
// a kept answer is the one compute would return. A checkout (no sums), a
// module without a hash, a program without a build ID, or an answer that
// is an error: nothing is kept, compute runs.
func cached[T any](opts Options, t *tree.Tree, question []string, compute func() (*T, error)) (*T, error) {
	key, ok := cacheKey(opts, t, question)
	if !ok {
		return compute()
	}
	var kept T
	if answercache.Get(opts.CacheDir, key, &kept) && keptWhole(&kept, t) {
		return &kept, nil
	}
	answer, err := compute()
	if err != nil {
		return nil, err
	}
	// An answer with a file not read or a construct not followed is not
	// kept: the cause may pass (a file unreadable for a moment, too many
	// open files), and the next run should try again.
	if !complete(answer) {
		return answer, nil
	}
	// A cache that cannot be written costs the next run its time, not
	// this one its answer.
	_ = answercache.Put(opts.CacheDir, key, answer)
	return answer, nil
}

// keptWhole reports whether a kept answer holds what a computed answer of
// the tree always holds: an entry that decodes but says less (null, {},
// a bare schema version) is computed again, not served.
func keptWhole(answer any, t *tree.Tree) bool {
	switch a := answer.(type) {
	case *Report:
		return a.SchemaVersion == SchemaVersion && sourceWhole(a.Source, t) && a.Error == "" &&
			a.DefaultPLEG != "" && a.Summary != ""
	case *GatesReport:
		return a.SchemaVersion == SchemaVersion && sourceWhole(a.Source, t) && len(a.Gates) > 0
	}
	return true
}

// sourceWhole: the source a release's answer names, read from source.
func sourceWhole(s Source, t *tree.Tree) bool {
	return s.Dir == t.Module+"@"+t.Version && s.KubernetesVersion == t.Version && s.Load.Mode != ""
}

// complete reports whether an answer read every file and followed every
// construct; only those are kept.
func complete(answer any) bool {
	switch a := answer.(type) {
	case *Report:
		return a.Source.Load.Complete()
	case *GatesReport:
		return a.Source.Load.Complete()
	}
	return true
}

func cacheKey(opts Options, t *tree.Tree, question []string) (string, bool) {
	if opts.CacheDir == "" || opts.Kubernetes == "" || opts.Proto != "" || len(t.Sums) == 0 {
		return "", false
	}
	// The build context's tool tags come from the environment
	// (GOEXPERIMENT, GOAMD64) and decide which files build.
	parts := append([]string{fmt.Sprint("schema ", SchemaVersion), "tags " + strings.Join(build.Default.ToolTags, ","), t.Module + "@" + t.Version}, question...)
	// Staging modules present without a hash (none today) would make the
	// key say less than the tree holds.
	for m := range t.Modules {
		if t.Sums[m] == "" {
			return "", false
		}
	}
	for _, m := range slices.Sorted(maps.Keys(t.Sums)) {
		if t.Sums[m] == "" {
			return "", false
		}
		parts = append(parts, m+" "+t.Sums[m])
	}
	return answercache.Key(parts...)
}

// FetchProgress is a FetchOptions.Progress that says on stderr (a
// command line's) what a slow run of the go command is fetching
// (render.FetchProgress): on a terminal a line while it runs, elsewhere a
// line for each run still going after a second.
func FetchProgress(stderr io.Writer, terminal bool) func(what string) (done func()) {
	return render.FetchProgress(stderr, terminal)
}
