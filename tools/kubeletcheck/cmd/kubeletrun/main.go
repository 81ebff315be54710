// Command kubeletrun runs one harness scenario by hand: a kubelet of a
// release on a runtime, scraped every half second, each capture written
// under -out, and the kubelet's log kept beside them.
//
//	go run ./cmd/kubeletrun -k8s v1.37.2 -runtime debian -gate EventedPLEG=true -out /tmp/caps
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

func main() {
	version := flag.String("k8s", "v1.37.2", "the Kubernetes `release` whose kubelet is built and run")
	runtimeName := flag.String("runtime", "debian", "debian (containerd 1.6, cannot stream) or built (containerd "+harness.ContainerdVersion+", streams)")
	gates := flag.String("gate", "", "feature gates set in the kubelet's configuration, `NAME=BOOL,...`")
	out := flag.String("out", "", "`directory` for the captures and the kubelet's log (required)")
	scrapes := flag.Int("scrapes", 20, "how many scrapes, half a second apart")
	pod := flag.Bool("pod", false, "run a static pod")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "kubeletrun: -out DIR is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *version, *runtimeName, *gates, *out, *scrapes, *pod); err != nil {
		fmt.Fprintln(os.Stderr, "kubeletrun:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, version, runtimeName, gates, out string, scrapes int, pod bool) error {
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	parts, err := harness.Prepare(ctx, logf)
	if err != nil {
		return err
	}
	bin, err := parts.Builder.Kubernetes(ctx, version, "kubelet")
	if err != nil {
		return err
	}
	rt, dir, err := parts.NewRuntimeNamed(ctx, runtimeName)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	defer rt.Stop()
	k := &harness.Kubelet{Version: version, Bin: bin, Dir: filepath.Join(dir, "kubelet"), Gates: map[string]bool{}}
	for _, g := range strings.Split(gates, ",") {
		if name, val, ok := strings.Cut(g, "="); ok {
			k.Gates[name] = val == "true"
		}
	}
	s := &harness.Scenario{Name: "manual", Kubelet: k, Runtime: rt, WithPod: pod, Scrapes: scrapes, Every: 500 * time.Millisecond, Out: out, Logf: logf}
	caps, err := s.Run(ctx, parts.Image)
	copyFile(k.Log(), filepath.Join(out, "kubelet.log"))
	copyFile(filepath.Join(dir, "containerd.log"), filepath.Join(out, "containerd.log"))
	for _, c := range caps {
		logf("%03d %s %v", c.Index, c.Start.Format("15:04:05.000"), c.Err)
	}
	return err
}

func copyFile(from, to string) {
	in, err := os.Open(from)
	if err != nil {
		return
	}
	defer in.Close()
	o, err := os.Create(to)
	if err != nil {
		return
	}
	defer o.Close()
	io.Copy(o, in)
}
