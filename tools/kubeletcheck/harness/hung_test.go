package harness

import (
	"strings"
	"testing"
)

// A goroutine dump in debug=2's form: a handler waiting on a CRI call,
// a relist waiting on one, and an idle goroutine.
const dump = `goroutine 1 [select, 2 minutes]:
google.golang.org/grpc/internal/transport.(*Stream).waitOnHeader(0xc000)
	/root/go/pkg/mod/google.golang.org/grpc@v1.72.1/internal/transport/transport.go:331 +0x1c
google.golang.org/grpc.invoke({0x1, 0x2}, {0x3, 0x4}, ...)
	/root/go/pkg/mod/google.golang.org/grpc@v1.72.1/call.go:65 +0xa5
k8s.io/cri-client/pkg.(*remoteRuntimeService).listPodSandboxV1(0xc0, {0x1, 0x2}, 0x0)
	/root/go/pkg/mod/k8s.io/cri-client@v0.37.2/pkg/remote_runtime.go:300 +0x5d
net/http.(*conn).serve(0xc0, {0x1, 0x2})
	/usr/lib/go/src/net/http/server.go:2100 +0x5d

goroutine 2 [select]:
google.golang.org/grpc.invoke({0x1, 0x2}, {0x3, 0x4}, ...)
	/root/go/pkg/mod/google.golang.org/grpc@v1.72.1/call.go:65 +0xa5
k8s.io/kubernetes/pkg/kubelet/pleg.(*GenericPLEG).Relist(0xc0)
	/root/go/pkg/mod/k8s.io/kubernetes@v1.37.2/pkg/kubelet/pleg/generic.go:200 +0x5d

goroutine 3 [IO wait]:
internal/poll.runtime_pollWait(0x1, 0x72)
	/usr/lib/go/src/runtime/netpoll.go:351 +0x85
`

func TestBlockedMetrics(t *testing.T) {
	gs := ParseGoroutines(dump)
	if len(gs) != 3 || len(gs[0].Frames) != 4 || gs[0].Frames[2].File != "/root/go/pkg/mod/k8s.io/cri-client@v0.37.2/pkg/remote_runtime.go:300" {
		t.Fatalf("parsed %+v", gs)
	}
	h, _, o := BlockedMetrics(dump)
	if len(h) != 1 || len(o) != 1 || !strings.HasPrefix(o[0].Header, "goroutine 2 ") {
		t.Fatalf("handlers %+v, others %+v", h, o)
	}
	tr := h[0].Trimmed()
	for _, want := range []string{"goroutine 1 [select, 2 minutes]:", "  k8s.io/cri-client/pkg.(*remoteRuntimeService).listPodSandboxV1\n      k8s.io/cri-client@v0.37.2/pkg/remote_runtime.go:300", "grpc.invoke\n"} {
		if !strings.Contains(tr, want) {
			t.Errorf("trimmed lacks %q:\n%s", want, tr)
		}
	}
}
