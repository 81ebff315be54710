package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
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
// stuck on a hung mount does.
type CRIProxy struct {
	Method string // e.g. /runtime.v1.RuntimeService/ListPodSandbox
	Sock   string
	dir    string

	mu       sync.Mutex
	held     bool
	released chan struct{}
	account  []string
	server   *grpc.Server
	backend  *grpc.ClientConn
}

// NewCRIProxy lays out a proxy holding method; Start serves it.
func NewCRIProxy(method string) (*CRIProxy, error) {
	dir, err := os.MkdirTemp("", "kc-proxy-")
	if err != nil {
		return nil, err
	}
	return &CRIProxy{Method: method, Sock: filepath.Join(dir, "cri.sock"), dir: dir, released: make(chan struct{})}, nil
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

// Account is what the proxy did: each held call, when it came, its
// deadline, and how its wait ended.
func (p *CRIProxy) Account() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.account...)
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
