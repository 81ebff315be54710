package harness

import (
	"context"
	"net"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// echoRuntime is a stand-in runtime on a unix socket: every call, unary
// or streaming, gets its request's frame back at once.
func echoRuntime(t *testing.T) *Runtime {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "rt.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(func(_ any, st grpc.ServerStream) error {
		var f []byte
		if err := st.RecvMsg(&f); err != nil {
			return err
		}
		return st.SendMsg(&f)
	}))
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return &Runtime{Sock: sock}
}

// call makes one call of method through the proxy and says how long it
// took.
func call(ctx context.Context, t *testing.T, p *CRIProxy, method string, stream bool) (time.Duration, error) {
	t.Helper()
	conn, err := grpc.NewClient(p.Endpoint(), grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	in, out := []byte("ping"), []byte(nil)
	start := time.Now()
	if stream {
		cs, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, method)
		if err == nil {
			if err = cs.SendMsg(&in); err == nil {
				cs.CloseSend()
				err = cs.RecvMsg(&out)
			}
		}
		return time.Since(start), err
	}
	err = conn.Invoke(ctx, method, &in, &out)
	if err == nil && string(out) != "ping" {
		t.Errorf("%s answered %q through the proxy; want the runtime's echo", method, out)
	}
	return time.Since(start), err
}

// The latency mode delays every unary call by the latency in force when
// it came, passes the event stream, gives up with a caller that gives
// up, lets waiting calls go when switched off, and accounts for each.
func TestCRIProxyLatency(t *testing.T) {
	p, err := NewCRIProxy("")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background(), echoRuntime(t)); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ctx := context.Background()
	const statusCall, list = "/runtime.v1.RuntimeService/Status", "/runtime.v1.RuntimeService/ListPodSandbox"
	if d, err := call(ctx, t, p, statusCall, false); err != nil || d > 200*time.Millisecond {
		t.Fatalf("without latency: %s, %v; want at once", d, err)
	}
	const lat = 400 * time.Millisecond
	p.SetLatency(lat)
	if d, err := call(ctx, t, p, statusCall, false); err != nil || d < lat || d > lat+300*time.Millisecond {
		t.Errorf("unary call at %s latency: %s, %v; want about %s", lat, d, err, lat)
	}
	if d, err := call(ctx, t, p, EventStream, true); err != nil || d > 200*time.Millisecond {
		t.Errorf("the event stream at %s latency: %s, %v; want it undelayed", lat, d, err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	d, err := call(short, t, p, list, false)
	cancel()
	if status.Code(err) != codes.DeadlineExceeded || d > lat {
		t.Errorf("a caller with a 100ms deadline: %s, %v; want DeadlineExceeded before the latency", d, err)
	}
	p.SetLatency(time.Hour)
	done := make(chan error, 1)
	go func() {
		_, err := call(ctx, t, p, list, false)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	p.SetLatency(0)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a call let go when the latency was switched off: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a waiting call was not let go when the latency was switched off")
	}
	got := map[string]Delays{}
	for _, d := range p.Delays() {
		got[d.Method] = d
	}
	if s := got[statusCall]; s.Calls != 1 || s.Full != 1 || s.Longest < lat {
		t.Errorf("Status's account: %+v; want one call that waited the whole latency", s)
	}
	if l := got[list]; l.Calls != 2 || l.GaveUp != 1 || l.Released != 1 {
		t.Errorf("ListPodSandbox's account: %+v; want two calls: one given up, one let go", l)
	}
	if _, ok := got[EventStream]; ok {
		t.Errorf("the event stream was delayed: %+v", got[EventStream])
	}
	if a := p.Account(); len(a) < 4 {
		t.Errorf("Account: %q; want the latency's changes and each method's line", a)
	}
}
