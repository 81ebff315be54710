package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// CRIProxy is a gRPC pass-through between the kubelet and containerd, on
// a socket of its own: every call is forwarded as raw frames (no CRI
// message is decoded), except that, while held, each call of Method
// waits until its caller's deadline passes or the hold ends, as a call
// stuck on a hung mount does; and, while a latency is set, every unary
// call waits that long before it is forwarded (or until its caller gives
// up, or the latency is switched off), as on a slow runtime. The event
// stream (EventStream) is never delayed.
type CRIProxy struct {
	Method string // e.g. /runtime.v1.RuntimeService/ListPodSandbox
	Sock   string
	dir    string

	mu       sync.Mutex
	held     bool
	released chan struct{}
	latency  time.Duration
	fast     chan struct{} // closed when the latency is switched off
	delays   map[string]*Delays
	account  []string
	server   *grpc.Server
	backend  *grpc.ClientConn
}

// EventStream is the CRI's one streaming call: the latency mode passes it.
const EventStream = "/runtime.v1.RuntimeService/GetContainerEvents"

// Delays is the latency mode's account of one method: how many calls it
// delayed, how many waited the whole latency, how many were let go when
// the latency was switched off, how many callers gave up first (their
// deadline or a cancel), and the longest wait.
type Delays struct {
	Method   string        `json:"method"`
	Calls    int           `json:"calls"`
	Full     int           `json:"full"`
	Released int           `json:"released"`
	GaveUp   int           `json:"gaveUp"`
	Longest  time.Duration `json:"longest"`
}

// NewCRIProxy lays out a proxy holding method; Start serves it.
func NewCRIProxy(method string) (*CRIProxy, error) {
	dir, err := os.MkdirTemp("", "kc-proxy-")
	if err != nil {
		return nil, err
	}
	return &CRIProxy{Method: method, Sock: filepath.Join(dir, "cri.sock"), dir: dir, released: make(chan struct{}),
		fast: make(chan struct{}), delays: map[string]*Delays{}}, nil
}

// Endpoint is the CRI endpoint the kubelet is given.
func (p *CRIProxy) Endpoint() string { return "unix://" + p.Sock }

// rawCodec passes a frame's bytes through: the proxy decodes nothing.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

// Start connects to the runtime's socket and serves the proxy's.
func (p *CRIProxy) Start(ctx context.Context, rt *Runtime) error {
	var err error
	p.backend, err = grpc.NewClient("unix://"+rt.Sock, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(rawCodec{})))
	if err != nil {
		return err
	}
	l, err := net.Listen("unix", p.Sock)
	if err != nil {
		return err
	}
	p.server = grpc.NewServer(grpc.ForceServerCodec(rawCodec{}), grpc.UnknownServiceHandler(p.forward),
		grpc.MaxRecvMsgSize(16<<20), grpc.MaxSendMsgSize(16<<20))
	go p.server.Serve(l)
	return nil
}

// Stop stops serving and removes the socket's directory.
func (p *CRIProxy) Stop() {
	if p.server != nil {
		p.server.Stop()
	}
	if p.backend != nil {
		p.backend.Close()
	}
	os.RemoveAll(p.dir)
}

// Hold starts (true) or ends (false) holding Method.
func (p *CRIProxy) Hold(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == p.held {
		return
	}
	p.held = on
	if on {
		p.released = make(chan struct{})
	} else {
		close(p.released)
	}
	p.note("hold %t", on)
}

// SetLatency delays every unary call by d from now on (0: none). Calls
// already waiting when the latency is switched off go on at once; a
// change from one latency to another applies to calls that come after.
func (p *CRIProxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d == p.latency {
		return
	}
	if p.latency > 0 && d == 0 {
		close(p.fast)
	}
	if p.latency == 0 && d > 0 {
		p.fast = make(chan struct{})
	}
	p.latency = d
	p.note("latency %s", d)
}

// Account is what the proxy did: each held call, when it came, its
// deadline, and how its wait ended; each change of the hold and of the
// latency; and, once a latency was set, each method's Delays in a line.
func (p *CRIProxy) Account() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]string(nil), p.account...)
	for _, d := range p.delaysLocked() {
		out = append(out, fmt.Sprintf("%s: %d delayed, %d waited the whole latency, %d let go when it was switched off, %d callers gave up first; longest wait %s",
			d.Method, d.Calls, d.Full, d.Released, d.GaveUp, d.Longest.Round(time.Millisecond)))
	}
	return out
}

// Delays is the latency mode's account, by method.
func (p *CRIProxy) Delays() []Delays {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delaysLocked()
}

func (p *CRIProxy) delaysLocked() []Delays {
	var out []Delays
	for _, d := range p.delays {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Method < out[j].Method })
	return out
}

// delay makes a unary call wait the latency in force when it came, and
// counts how the wait ended; it returns the caller's error when the
// caller gave up first.
func (p *CRIProxy) delay(ctx context.Context, method string) error {
	p.mu.Lock()
	lat, fast := p.latency, p.fast
	if lat == 0 || method == EventStream {
		p.mu.Unlock()
		return nil
	}
	d := p.delays[method]
	if d == nil {
		d = &Delays{Method: method}
		p.delays[method] = d
	}
	d.Calls++
	p.mu.Unlock()
	start := time.Now()
	t := time.NewTimer(lat)
	defer t.Stop()
	var err error
	var count *int
	select {
	case <-t.C:
		count = &d.Full
	case <-fast:
		count = &d.Released
	case <-ctx.Done():
		count, err = &d.GaveUp, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	*count++
	if w := time.Since(start); w > d.Longest {
		d.Longest = w
	}
	return err
}

func (p *CRIProxy) note(f string, a ...any) {
	p.account = append(p.account, time.Now().UTC().Format("15:04:05.000")+" "+fmt.Sprintf(f, a...))
}

func (p *CRIProxy) forward(_ any, in grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(in)
	if !ok {
		return errors.New("no method")
	}
	ctx := in.Context()
	if method == p.Method {
		p.mu.Lock()
		held, released := p.held, p.released
		if held {
			dl, _ := ctx.Deadline()
			p.note("%s held (deadline in %s)", method, time.Until(dl).Round(time.Second))
		}
		p.mu.Unlock()
		if held {
			start := time.Now()
			select {
			case <-ctx.Done():
				p.mu.Lock()
				p.note("%s: the caller gave up after %s: %v", method, time.Since(start).Round(time.Millisecond), ctx.Err())
				p.mu.Unlock()
				return ctx.Err()
			case <-released:
				p.mu.Lock()
				p.note("%s released after %s", method, time.Since(start).Round(time.Millisecond))
				p.mu.Unlock()
			}
		}
	}
	if err := p.delay(ctx, method); err != nil {
		return err
	}
	md, _ := metadata.FromIncomingContext(ctx)
	out := metadata.MD{}
	for k, v := range md {
		if k != ":authority" && k != "content-type" && k != "user-agent" {
			out[k] = v
		}
	}
	octx, cancel := context.WithCancel(metadata.NewOutgoingContext(ctx, out))
	defer cancel()
	cs, err := p.backend.NewStream(octx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return err
	}
	// The caller's frames to the runtime.
	go func() {
		for {
			var f []byte
			if err := in.RecvMsg(&f); err != nil {
				cs.CloseSend()
				return
			}
			if err := cs.SendMsg(&f); err != nil {
				return
			}
		}
	}()
	// The runtime's header, frames and trailer back.
	first := true
	for {
		var f []byte
		err := cs.RecvMsg(&f)
		if first {
			first = false
			if h, herr := cs.Header(); herr == nil {
				in.SendHeader(h)
			}
		}
		if err == io.EOF {
			in.SetTrailer(cs.Trailer())
			return nil
		}
		if err != nil {
			in.SetTrailer(cs.Trailer())
			return err
		}
		if err := in.SendMsg(&f); err != nil {
			return err
		}
	}
}
