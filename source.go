package plegvet

import (
	"time"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble"
	"github.com/plegvet/plegvet/internal/load/release"
)

// Options say which tree to analyse.
type Options struct {
	// Dir is the root of a Kubernetes checkout (a fork's, say); "" means
	// the current directory.
	Dir string
	// Kubernetes, when set, is a released version (v1.36.1) whose
	// k8s.io/kubernetes and k8s.io/cri-api modules are fetched with the
	// go command and analysed as if they were a checkout. Dir is then
	// ignored.
	Kubernetes string
	// Proto, when set, is the CRI api.proto to read instead of the
	// tree's. Alone (Dir and Kubernetes empty) it is read without a tree.
	Proto string
	// CacheDir, when set, keeps the answers Inspect and Gates give for a
	// released version (Kubernetes set, Proto not) in this directory,
	// keyed by the program's build ID and the fetched modules' go.sum
	// hashes, and reads them from there when asked again: a release's
	// content never changes. A checkout is never cached. "" caches
	// nothing; the command line uses DefaultCacheDir().
	CacheDir string
	// Fetch says how the go command fetches a released version.
	Fetch FetchOptions
	// SkipIndex reads a node's source (LoadNodeSource, Node) from the
	// release itself even when plegvet's index holds it.
	SkipIndex bool
	// Scrape is how Prometheus scrapes the kubelets, which the rules of
	// Alerts that read the scrape itself assume; zero means
	// answer.DefaultScrapeLayout() (kube-prometheus's).
	Scrape answer.ScrapeLayout
}

// FetchOptions say how the go command that fetches released source (or
// lists a range's patches) runs.
type FetchOptions struct {
	// Timeout bounds each run of the go command: one download of a
	// release (k8s.io/kubernetes and k8s.io/cri-api together), of a
	// runtime's module, or one listing of a minor's patches. On expiry
	// the go command is stopped, its temporary directory removed, and the
	// answer is an error that wraps context.DeadlineExceeded and names
	// GOPROXY. Zero means DefaultFetchTimeout; less than zero, no limit
	// but the context's. The command line sets it from
	// PLEGVET_FETCH_TIMEOUT.
	Timeout time.Duration
	// Progress, when set, is told as each run of the go command that
	// downloads modules begins, with what it fetches ("fetching
	// k8s.io/kubernetes@v1.36.1, k8s.io/cri-api@v0.36.1"); the func it
	// returns is called as the run ends. Runs may overlap (a timeline
	// fetches releases at once). A module already in the module cache
	// makes a run of a few tens of milliseconds.
	Progress func(what string) (done func())
	// PreReleases makes a range (v1.36.0..v1.38.0) and a minor (v1.38)
	// take the pre-releases the module proxy serves (alpha, beta, rc) as
	// well as releases: a minor with no release within the range gives
	// its newest pre-release. A pre-release named in full
	// (v1.38.0-beta.0) is fetched either way. The command line's
	// -pre-releases sets it.
	PreReleases bool
}

// DefaultFetchTimeout is the limit of a run of the go command when
// FetchOptions.Timeout is zero, for a run that downloads one module (30 s
// more for each further one, as a release's staging modules come in one
// run): a cold download of k8s.io/kubernetes
// (about 20 MB zipped) takes seconds to a minute or two, and a proxy that
// accepts the connection and never answers is given up on in bounded
// time. With GOPROXY=direct the go command clones the repository instead;
// raise the limit for that.
const DefaultFetchTimeout = release.DefaultFetchTimeout

// fetcher is the release fetcher these options describe.
func (o FetchOptions) fetcher() release.Fetcher {
	return release.Fetcher{Timeout: o.Timeout, Progress: o.Progress, PreReleases: o.PreReleases}
}

// internal is what the answers read these options as.
func (o Options) internal() assemble.Options {
	return assemble.Options{
		Dir: o.Dir, Kubernetes: o.Kubernetes, Proto: o.Proto, CacheDir: o.CacheDir,
		Fetch: o.Fetch.fetcher(), SkipIndex: o.SkipIndex, Index: nodeIndex, Scrape: o.Scrape,
	}
}
