package plegvet

import (
	"context"
	"errors"

	"github.com/plegvet/plegvet/internal/gatehistory"
)

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
func GateHistory(ctx context.Context, opts HistoryOptions, names ...string) (*GateHistoryReport, error) {
	versions, err := Releases(ctx, opts.Kubernetes, opts.Fetch)
	if err != nil {
		return nil, err
	}
	reads := gatehistory.Each(gatehistory.SortVersions(versions), opts.Workers, opts.Progress, func(v string) gatehistory.Read {
		rep, err := Gates(ctx, Options{Kubernetes: v, CacheDir: opts.CacheDir, Fetch: opts.Fetch})
		return gatehistory.Read{Version: v, Gates: rep, Err: err}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep, err := gatehistory.Of(reads, names, releaseSource)
	if u := (*gatehistory.UnknownName)(nil); errors.As(err, &u) {
		return nil, &UnknownGateError{Name: u.Name, Releases: u.Releases, DidYouMean: u.DidYouMean}
	}
	return rep, err
}
