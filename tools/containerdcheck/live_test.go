package containerdcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"

	"github.com/plegvet/plegvet"
)

// Bounds of the check; each wait is bounded, whatever containerd does.
const (
	installTimeout = 10 * time.Minute // apt-get update and install, cold
	buildTimeout   = 15 * time.Minute // fetching and building containerd, cold
	startTimeout   = 60 * time.Second // until the CRI Version rpc answers
	streamWait     = 3 * time.Second  // how long an open stream is watched
	stopGrace      = 10 * time.Second // after SIGTERM, before SIGKILL
)

// TestLiveStreamAgreesWithSource starts containerd with a temporary root,
// state and socket, asks it for its version (the CRI Version rpc) and for
// the GetContainerEvents stream, and requires plegvet's verdict for the
// version it reports, read from that release's source, to agree with
// what it did. Two containerds: Debian's (installed when missing; 1.6 on
// bookworm, which answers Unimplemented), and one built here from the
// containerd module at builtVersion, which streams (skipped with -short:
// the build takes a minute or two).
func TestLiveStreamAgreesWithSource(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: containerd runs as root, and installing it takes apt-get")
	}
	t.Run("debian", func(t *testing.T) {
		check(t, containerdBinary(t))
	})
	t.Run("built", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds containerd " + builtVersion + " from its module")
		}
		check(t, buildContainerd(t, builtVersion))
	})
}

// builtVersion is the containerd release built from its module: one of
// the 2.x line, whose CRI server streams.
const builtVersion = "v2.1.4"

// check runs one containerd binary and compares.
func check(t *testing.T, bin string) {
	sock, logs := startContainerd(t, bin)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := runtimeapi.NewRuntimeServiceClient(conn)

	version := waitForVersion(ctx, t, client, logs)
	t.Logf("runtime reports %s %s (CRI %s)", version.RuntimeName, version.RuntimeVersion, version.RuntimeApiVersion)

	did, streamed := openStream(ctx, t, client)
	t.Logf("GetContainerEvents: %s", did)

	rep, err := plegvet.RuntimeStreams(ctx, version.RuntimeName, version.RuntimeVersion, plegvet.FetchOptions{})
	if err != nil {
		t.Fatalf("plegvet for %s %s: %v", version.RuntimeName, version.RuntimeVersion, err)
	}
	if rep.StreamsEvents == nil {
		t.Fatalf("plegvet has no verdict for %s %s: %s", version.RuntimeName, version.RuntimeVersion, rep.Why)
	}
	t.Logf("plegvet: %s@%s streamsEvents=%t at %s:%d: %s", rep.Module, rep.ModuleVersion, *rep.StreamsEvents, rep.Pos.File, rep.Pos.Line, rep.Why)
	if *rep.StreamsEvents != streamed {
		t.Errorf("containerd %s %s; plegvet read streamsEvents=%t in %s@%s", version.RuntimeVersion, did, *rep.StreamsEvents, rep.Module, rep.ModuleVersion)
	}
}

// buildContainerd builds cmd/containerd of the containerd module at
// version, fetched with the go command, into a temporary directory: a
// copy of the module (the cache is read-only, and the zip has no vendor
// tree), built without cgo and the storage drivers that need it.
func buildContainerd(t *testing.T, version string) string {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	mod := "github.com/containerd/containerd/v2"
	out, err := exec.CommandContext(ctx, "go", "mod", "download", "-json", mod+"@"+version).Output()
	if err != nil {
		t.Skipf("cannot fetch %s@%s: %v", mod, version, err)
	}
	var dl struct{ Dir, Error string }
	if err := json.Unmarshal(out, &dl); err != nil || dl.Dir == "" {
		t.Skipf("cannot fetch %s@%s: %v %s", mod, version, err, dl.Error)
	}
	src := filepath.Join(t.TempDir(), "src")
	if err := os.CopyFS(src, os.DirFS(dl.Dir)); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "containerd")
	cmd := exec.CommandContext(ctx, "go", "build", "-mod=mod", "-tags", "no_btrfs no_devmapper no_zfs", "-o", bin, "./cmd/containerd")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-mod=mod")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building containerd %s: %v\n%s", version, err, lastLines(b, 20))
	}
	return bin
}

// containerdBinary finds containerd, installing Debian's package when it
// is missing; the test is skipped, with the reason, when that fails.
func containerdBinary(t *testing.T) string {
	if p, err := exec.LookPath("containerd"); err == nil {
		return p
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Skip("no containerd, and no apt-get to install it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	apt := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get %s: %v: %s", strings.Join(args, " "), err, lastLines(out, 3))
		}
		return nil
	}
	// A fresh machine may have no package lists: update once, then retry.
	if err := apt("install", "-y", "--no-install-recommends", "containerd"); err != nil {
		t.Logf("%v; updating the package lists", err)
		if err := apt("update"); err != nil {
			t.Skipf("cannot install containerd: %v", err)
		}
		if err := apt("install", "-y", "--no-install-recommends", "containerd"); err != nil {
			t.Skipf("cannot install containerd: %v", err)
		}
	}
	p, err := exec.LookPath("containerd")
	if err != nil {
		t.Skipf("apt-get installed containerd, but it is not on PATH: %v", err)
	}
	return p
}

// startContainerd runs containerd on a temporary root, state and socket,
// with a configuration that needs no container: the native snapshotter,
// no CNI. It is stopped when the test ends: its process group gets
// SIGTERM, then SIGKILL, each wait bounded.
func startContainerd(t *testing.T, bin string) (sock string, logs *bytes.Buffer) {
	dir, err := os.MkdirTemp("", "ctrd-") // short: a socket path has a limit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, state := filepath.Join(dir, "root"), filepath.Join(dir, "state")
	sock = filepath.Join(dir, "c.sock")
	config := filepath.Join(dir, "config.toml")
	conf := fmt.Sprintf(`version = 2
root = %q
state = %q

[grpc]
  address = %q

[plugins."io.containerd.grpc.v1.cri"]
  disable_cgroup = true
  disable_apparmor = true
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = %q
    conf_dir = %q
`, root, state, sock, filepath.Join(dir, "cni-bin"), filepath.Join(dir, "cni-conf"))
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", config, "--root", root, "--state", state, "--address", sock)
	logs = &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		pgid := cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(stopGrace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			select {
			case <-exited:
			case <-time.After(stopGrace):
				t.Errorf("containerd (pid %d) did not exit after SIGKILL", pgid)
			}
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // whatever it left in its group
		if t.Failed() {
			t.Logf("containerd's log, last lines:\n%s", lastLines(logs.Bytes(), 30))
		}
	})
	return sock, logs
}

// waitForVersion asks the CRI Version rpc until it answers: that the
// RuntimeService is served at all is what makes the stream's answer mean
// something (a CRI plugin that failed to load answers Unimplemented to
// everything).
func waitForVersion(ctx context.Context, t *testing.T, client runtimeapi.RuntimeServiceClient, logs *bytes.Buffer) *runtimeapi.VersionResponse {
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		v, err := client.Version(cctx, &runtimeapi.VersionRequest{})
		cancel()
		if err == nil {
			return v
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the CRI Version rpc did not answer within %s: %v\ncontainerd's log, last lines:\n%s", startTimeout, last, lastLines(logs.Bytes(), 30))
	return nil
}

// openStream opens GetContainerEvents and says what the runtime did:
// answered Unimplemented, ended the stream, or kept it open (no
// container runs, so no event comes; an open stream is a served one).
func openStream(ctx context.Context, t *testing.T, client runtimeapi.RuntimeServiceClient) (did string, streamed bool) {
	sctx, cancel := context.WithTimeout(ctx, streamWait)
	defer cancel()
	stream, err := client.GetContainerEvents(sctx, &runtimeapi.GetEventsRequest{})
	if err == nil {
		_, err = stream.Recv()
	}
	switch st, _ := status.FromError(err); {
	case err == nil:
		return "sent an event", true
	case st.Code() == codes.Unimplemented && strings.Contains(st.Message(), "unknown service"):
		t.Fatalf("the runtime does not serve the CRI v1 RuntimeService: %v", err)
	case st.Code() == codes.Unimplemented:
		return fmt.Sprintf("answered Unimplemented (%q)", st.Message()), false
	case errors.Is(err, io.EOF):
		return "ended the stream at once, with no event", false
	case st.Code() == codes.DeadlineExceeded && ourDeadline(sctx):
		return fmt.Sprintf("kept the stream open for %s (no container runs, so no event came)", streamWait), true
	default:
		t.Fatalf("GetContainerEvents: unexpected %v", err)
	}
	return "", false
}

// ourDeadline says whether a DeadlineExceeded was our own deadline. The
// server learns it from grpc-timeout and may cancel the stream (RST_STREAM
// CANCEL, seen as DeadlineExceeded) a moment before the client's timer
// fires, so wait a bounded moment for the context to agree.
func ourDeadline(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return errors.Is(ctx.Err(), context.DeadlineExceeded)
	case <-time.After(time.Second):
		return false
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
