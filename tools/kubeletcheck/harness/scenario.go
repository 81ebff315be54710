package harness

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Scenario is one kubelet on one runtime, scraped from the moment it
// serves.
type Scenario struct {
	Name    string
	Kubelet *Kubelet
	Runtime *Runtime
	// WithPod runs the static pod; Scrapes is how many scrapes to take,
	// Every apart.
	WithPod bool
	Scrapes int
	Every   time.Duration
	// Out, when set, receives each scrape as Out/NNN/{configz.json,
	// metrics.txt}, and crictl.txt beside them.
	Out string
	// During runs once, after the scrape numbered At (from 0), beside the
	// scraping, which goes on meanwhile (kill a container, restart the
	// runtime); Run waits for it before it returns.
	During func(ctx context.Context) error
	At     int
	Logf   func(string, ...any)
}

// Capture is a scrape with what crictl printed at the start.
type Capture struct {
	Scrape
	Index  int
	Dir    string
	Crictl []byte
	Err    error // a scrape that failed (a runtime restart may make one)
}

// Run starts the runtime (when not running) and the kubelet, scrapes,
// and stops the kubelet. The runtime is left running for the caller to
// stop or reuse.
func (s *Scenario) Run(ctx context.Context, image string) ([]Capture, error) {
	if err := waitPortFree(KubeletPort, 30*time.Second); err != nil {
		return nil, err
	}
	if s.Runtime.proc == nil {
		if err := s.Runtime.Start(ctx); err != nil {
			return nil, err
		}
		if err := s.Runtime.ImportImage(ctx, image); err != nil {
			return nil, err
		}
	}
	crictl, err := s.Runtime.Version(ctx)
	if err != nil {
		return nil, err
	}
	if s.Out != "" {
		if err := os.MkdirAll(s.Out, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(s.Out, "crictl.txt"), crictl, 0o644); err != nil {
			return nil, err
		}
	}
	if err := s.Kubelet.Start(ctx, s.Runtime, s.WithPod); err != nil {
		return nil, err
	}
	defer s.Kubelet.Stop()
	first, err := s.Kubelet.WaitServing(ctx, 90*time.Second)
	if err != nil {
		return nil, err
	}
	caps := []Capture{{Scrape: *first, Crictl: crictl}}
	next := first.Start.Add(s.Every)
	var during chan error
	for len(caps) < s.Scrapes {
		if len(caps)-1 == s.At && s.During != nil {
			during = make(chan error, 1)
			go func() { during <- s.During(ctx) }()
		}
		time.Sleep(time.Until(next))
		next = next.Add(s.Every)
		if done, why := s.Kubelet.Exited(); done {
			return caps, fmt.Errorf("%s: %s", s.Name, why)
		}
		sc, err := s.Kubelet.Scrape(ctx)
		c := Capture{Crictl: crictl, Err: err}
		if sc != nil {
			c.Scrape = *sc
		}
		caps = append(caps, c)
	}
	if during != nil {
		if err := <-during; err != nil {
			return caps, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	for i := range caps {
		caps[i].Index = i
		if s.Out == "" || caps[i].Err != nil {
			continue
		}
		caps[i].Dir = filepath.Join(s.Out, fmt.Sprintf("%03d", i))
		if err := os.MkdirAll(caps[i].Dir, 0o755); err != nil {
			return caps, err
		}
		if err := os.WriteFile(filepath.Join(caps[i].Dir, "configz.json"), caps[i].Configz, 0o644); err != nil {
			return caps, err
		}
		if err := os.WriteFile(filepath.Join(caps[i].Dir, "metrics.txt"), caps[i].Metrics, 0o644); err != nil {
			return caps, err
		}
	}
	return caps, nil
}

// waitPortFree waits until nothing listens on the kubelet's port: the
// kubelet before may still be closing.
func waitPortFree(port int, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		l, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
		if err == nil {
			l.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("port %d is still in use after %s (another kubelet?): %w", port, within, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Metric returns the value of the first sample whose line starts with
// name followed by a space or a brace, and whether there was one.
func Metric(metrics []byte, name string) (string, bool) {
	for _, l := range strings.Split(string(metrics), "\n") {
		if strings.HasPrefix(l, name+" ") || strings.HasPrefix(l, name+"{") {
			f := strings.Fields(l)
			return f[len(f)-1], true
		}
	}
	return "", false
}
