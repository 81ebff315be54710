package release

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Fetcher runs the go command that fetches or lists releases. Its zero
// value is ready to use: each run under DefaultFetchTimeout.
type Fetcher struct {
	// Timeout bounds each run of the go command that fetches or lists
	// releases: one "go mod download" of a release (k8s.io/kubernetes and
	// k8s.io/cri-api together), or one "go list -m" of a range's patches.
	// Zero means DefaultFetchTimeout; less than zero means no limit but
	// the caller's context.
	//
	// On expiry the go command is stopped (its whole process group on
	// unix: SIGTERM, then SIGKILL after a few seconds), its temporary
	// directory is removed and the fetch fails with one line that wraps
	// context.DeadlineExceeded and names GOPROXY as the go command sees
	// it:
	//
	//	fetching k8s.io/kubernetes@v1.36.1: no answer from the go command within 5m0s (GOPROXY=https://proxy.golang.org,direct): context deadline exceeded
	//
	// The command line sets it from PLEGVET_FETCH_TIMEOUT.
	Timeout time.Duration

	// Progress, when set, is told as each run of the go command that
	// downloads modules begins, with what it fetches
	// ("fetching k8s.io/kubernetes@v1.36.1, k8s.io/cri-api@v0.36.1");
	// the func it returns is called as the run ends. Runs may overlap.
	Progress func(what string) (done func())

	// PreReleases makes a range (v1.36.0..v1.38.0) and a minor's newest
	// (v1.38) take the pre-releases the proxy serves (v1.38.0-beta.0)
	// as well as releases. A pre-release named in full is fetched either
	// way.
	PreReleases bool

	// started, when set (by the package's tests), is told the pid of each
	// go command run.
	started func(pid int)
}

// DefaultFetchTimeout is the limit of a Fetcher whose Timeout is zero,
// for a run of the go command that downloads one module, and 30 s more
// for each further module the run downloads. A cold download of
// k8s.io/kubernetes is a zip of about 20 MB (134 MB
// unpacked): seconds from proxy.golang.org on a good link, a minute or
// two on a slow one; 5 minutes leaves room for that and for a slow proxy,
// while a proxy that accepts the connection and never answers is given
// up on in bounded time. With GOPROXY=direct the go command clones the
// repository instead; raise the limit for that.
const DefaultFetchTimeout = 5 * time.Minute

// perExtraModule is what the default limit grows by for each module after
// the first that one go command downloads: a release's staging modules
// (28 for v1.30) come in one run, and cold, on a busy machine, took more
// than 5 minutes together (measured on a cold CI run on 2 cores).
const perExtraModule = 30 * time.Second

// stopGrace is how long a stopped go command has to exit after SIGTERM
// before it is killed.
const stopGrace = 5 * time.Second

// runGo runs the go command with args in dir, outside any module or
// workspace, under the Fetcher's limit. what says what the run is for
// ("fetching k8s.io/kubernetes@v1.36.1"). If the context ends first
// (deadline or cancellation), the go command and its children are
// stopped and the error is one line starting with what and wrapping
// ctx.Err(); otherwise err is the go command's own (nil, *exec.ExitError,
// *exec.Error).
func (f Fetcher) runGo(ctx context.Context, what, dir string, args ...string) (stdout, stderr []byte, err error) {
	return f.runGoFor(ctx, 1, what, dir, args...)
}

// runGoFor is runGo for a run that downloads the given number of modules.
func (f Fetcher) runGoFor(ctx context.Context, modules int, what, dir string, args ...string) (stdout, stderr []byte, err error) {
	limit := f.Timeout // as set by the user, or the default for the modules
	if limit == 0 {
		limit = DefaultFetchTimeout + time.Duration(max(modules-1, 0))*perExtraModule
	}
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if limit > 0 {
		runCtx, cancel = context.WithTimeoutCause(ctx, limit, errFetchTimeout)
	}
	defer cancel()
	begin := time.Now()

	var outBuf, errBuf bytes.Buffer
	cmd := goCommand(runCtx, dir, args...)
	cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
	err = cmd.Start()
	if err == nil {
		if f.started != nil {
			f.started(cmd.Process.Pid)
		}
		err = cmd.Wait()
	}
	if runCtx.Err() != nil && cmd.Process != nil {
		killGroup(cmd)
	}
	if err != nil && runCtx.Err() != nil {
		return outBuf.Bytes(), errBuf.Bytes(), stopped(runCtx, what, dir, limit, begin, errBuf.String())
	}
	return outBuf.Bytes(), errBuf.Bytes(), err
}

// errFetchTimeout is the cause of a context that the Fetcher's limit ended, to
// tell it from the caller's own deadline.
var errFetchTimeout = errors.New("fetch timeout")

// goCommand is the go command, run so that the end of ctx stops it and
// what it started, in bounded time.
func goCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GO111MODULE=on")
	ownGroup(cmd)
	cmd.Cancel = func() error { return terminate(cmd) }
	cmd.WaitDelay = stopGrace
	return cmd
}

// stopped describes a go command the context stopped, in one line.
func stopped(ctx context.Context, what, dir string, limit time.Duration, begin time.Time, stderr string) error {
	err := ctx.Err()
	said := ""
	if s := oneLine(stderr); s != "" {
		said = " (the go command said: " + s + ")"
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: interrupted before the go command answered%s: %w", what, said, err)
	}
	if context.Cause(ctx) != errFetchTimeout {
		// The caller's deadline came first: say how long it allowed.
		limit = time.Since(begin).Round(time.Millisecond)
		if dl, ok := ctx.Deadline(); ok && dl.Sub(begin) >= 100*time.Millisecond {
			limit = dl.Sub(begin).Round(100 * time.Millisecond)
		}
	}
	return fmt.Errorf("%s: no answer from the go command within %s (GOPROXY=%s)%s: %w", what, limit, goproxy(dir), said, err)
}

// goproxy is GOPROXY as the go command sees it (environment, go env -w
// file or the toolchain's default), for error messages.
func goproxy(dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := goCommand(ctx, dir, "env", "GOPROXY").Output()
	if p := strings.TrimSpace(string(out)); err == nil && p != "" {
		return p
	}
	return cmp.Or(os.Getenv("GOPROXY"), "unknown")
}
