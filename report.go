package plegvet

import (
	"context"
	"io"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/load/answercache"
	"github.com/plegvet/plegvet/internal/render"
)

// Inspect answers for one tree: it loads pkg/features, pkg/kubelet/pleg
// and pkg/kubelet once, runs every analyzer, reads the CRI api.proto, and
// joins them. A part the tree lacks is reported in Missing, not as an
// error.
func Inspect(ctx context.Context, opts Options) (*answer.Report, error) {
	return assemble.Inspect(ctx, opts.internal())
}

// Periods follows the PLEG relist periods of a tree's kubelet, in both
// states of the EventedPLEG gate, and checks the relist safety net.
func Periods(ctx context.Context, opts Options) (*answer.PeriodsReport, error) {
	return assemble.Periods(ctx, opts.internal())
}

// Releases expands a release list as the command line takes it: one
// version (v1.36.1), a comma list, or a range "v1.26.0..v1.37.2", which
// means the newest patch of each minor, from the first to the last, that
// the module proxy serves (every patch is asked for by name, since a
// proxy's version list can be partial), the go command running as fetch
// says.
func Releases(ctx context.Context, spec string, fetch FetchOptions) ([]string, error) {
	return assemble.Releases(ctx, spec, fetch.fetcher())
}

// TimelineOptions say how Timeline reads its releases.
type TimelineOptions struct {
	// Workers bounds the releases fetched and analysed at once; 0 means
	// one per CPU.
	Workers int
	// Progress, when set, is called as each release finishes.
	Progress func(done, total int, version string)
	// CacheDir is Options.CacheDir for each release.
	CacheDir string
	// Fetch is Options.Fetch for each release.
	Fetch FetchOptions
}

// Timeline answers for several releases (see Releases for expanding a
// range), fetching and analysing them in parallel. A release that cannot
// be fetched or read is a row with its Error, not a failure of the whole
// timeline.
func Timeline(ctx context.Context, versions []string, opts TimelineOptions) []*answer.Report {
	return assemble.Timeline(ctx, versions, opts.Workers, opts.Progress, Options{CacheDir: opts.CacheDir, Fetch: opts.Fetch}.internal())
}

// HistoryOptions say which releases a gate history reads.
type HistoryOptions struct {
	// Kubernetes is the releases, as Releases expands them: one version,
	// a comma list (v1.26.0,v1.27.0) or a range (v1.25.0..v1.37.2, the
	// newest patch of each minor the module proxy serves).
	Kubernetes string
	// Workers bounds the releases fetched and analysed at once; 0 means
	// runtime.NumCPU().
	Workers int
	// Progress, when set, is called as each release finishes.
	Progress func(done, total int, version string)
	// CacheDir is Options.CacheDir for each release.
	CacheDir string
	// Fetch is Options.Fetch, for listing the releases and for each one.
	Fetch FetchOptions
}

// GateHistory reads the feature gates of each release (see Releases for
// the forms opts.Kubernetes takes), fetching and analysing the releases in
// parallel, and follows the named gates through them, oldest release
// first. A name matches a gate's name or its constant's identifier, as
// for Gates; no names means every gate any release declares, by name. A
// name no release read declares is an error naming it; a release that
// cannot be fetched or read is a row with its error, in every gate, while
// the others still answer. It is an error when no release could be read.
func GateHistory(ctx context.Context, opts HistoryOptions, names ...string) (*answer.GateHistoryReport, error) {
	return assemble.GateHistory(ctx, opts.Workers, opts.Progress, Options{Kubernetes: opts.Kubernetes, CacheDir: opts.CacheDir, Fetch: opts.Fetch}.internal(), names...)
}

// DefaultCacheDir is the cache the command line uses for Options.CacheDir:
// $PLEGVET_CACHE, or plegvet under the user's cache directory; "" when the
// cache is off (PLEGVET_CACHE=off) or there is no such directory.
func DefaultCacheDir() string {
	dir, _ := answercache.Dir() // "" when off
	return dir
}

// FetchProgress is a FetchOptions.Progress that says on stderr (a
// command line's) what a slow run of the go command is fetching
// (render.FetchProgress): on a terminal a line while it runs, elsewhere a
// line for each run still going after a second.
func FetchProgress(stderr io.Writer, terminal bool) func(what string) (done func()) {
	return render.FetchProgress(stderr, terminal)
}
