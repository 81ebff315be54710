// Command kubectl-pleg is the kubectl plugin "kubectl pleg": which PLEG each
// node's kubelet runs. Install it on PATH and run kubectl pleg --help.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/klog/v2"

	"github.com/plegvet/plegvet/tools/kubectl-pleg/fleet"
)

func main() {
	// client-go's logs (throttling notices) would interleave with the
	// table; every failure reaches the user as an error instead.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := fleet.Main(ctx, os.Args[1:], genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}, nil)
	stop()
	os.Exit(code)
}
