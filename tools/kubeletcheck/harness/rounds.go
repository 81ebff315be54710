package harness

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// rounds reads a live node every period, from its start until stop, into
// one list the scenario waits on (until). The scenario's other loops
// (kubectl pleg, a patient scrape, goroutine dumps) run beside it with
// go, end with it, and share its lock for what they record.
type rounds[T any] struct {
	n    *Node
	logf func(string, ...any)
	// onStop runs once when stop is called, before the loops are waited
	// for: what ends a request still in flight.
	onStop func()

	sync.Mutex // guards list, and whatever the scenario's loops record
	list       []T
	done       chan struct{}
	wg         sync.WaitGroup
	stopped    bool
}

// watch starts reading n every period: read(i) is round i, read one
// after the other.
func watch[T any](n *Node, every time.Duration, logf func(string, ...any), read func(index int) T) *rounds[T] {
	r := &rounds[T]{n: n, logf: logf, done: make(chan struct{})}
	r.goLoop(func(done <-chan struct{}) {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := 0; ; i++ {
			got := read(i)
			r.Lock()
			r.list = append(r.list, got)
			r.Unlock()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return r
}

// goLoop runs loop beside the rounds until stop closes done.
func (r *rounds[T]) goLoop(loop func(done <-chan struct{})) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		loop(r.done)
	}()
}

// stop ends every loop and waits for them; later calls do nothing.
func (r *rounds[T]) stop() {
	if r.stopped {
		return
	}
	r.stopped = true
	close(r.done)
	if r.onStop != nil {
		r.onStop()
	}
	r.wg.Wait()
}

// all is the rounds read so far.
func (r *rounds[T]) all() []T {
	r.Lock()
	defer r.Unlock()
	return append([]T(nil), r.list...)
}

// until polls the rounds until cond holds of them (never of none) or
// within passes, which is logged, not an error: what the scenario waited
// for and did not see is in what it returns. The kubelet exiting ends it
// with an error.
func (r *rounds[T]) until(within time.Duration, what string, cond func([]T) bool) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if gone, why := r.n.Kubelet.Exited(); gone {
			return fmt.Errorf("waiting for %s: %s", what, why)
		}
		r.Lock()
		ok := len(r.list) > 0 && cond(r.list)
		r.Unlock()
		if ok {
			return nil
		}
		time.Sleep(time.Second)
	}
	r.logf("%s: not within %s", what, within)
	return nil
}

// ready readies a started node for a fault scenario: the static pod's
// container running and the runtime's version read (crictl's words), the
// rules file's text read when there is one.
func ready(ctx context.Context, n *Node, rulesFile string) (rules string, crictl []byte, err error) {
	if rulesFile != "" {
		data, err := os.ReadFile(rulesFile)
		if err != nil {
			return "", nil, err
		}
		rules = string(data)
	}
	if _, _, err := n.Runtime.RunningContainer(ctx, "sleeper", 2*time.Minute); err != nil {
		return "", nil, err
	}
	if crictl, err = n.Runtime.Version(ctx); err != nil {
		return "", nil, err
	}
	return rules, crictl, nil
}
