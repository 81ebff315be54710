package render

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a strings.Builder safe for the progress timer's writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A fetch says what it fetches once it is slow: a CI log gets one line
// after a second, a terminal a line erased as the fetch ends; a fetch
// from the module cache, quick, says nothing.
func TestFetchProgress(t *testing.T) {
	const what = "fetching k8s.io/kubernetes@v1.36.1"
	line := "plegvet: " + what + " with the go command (once per release: the module cache keeps it)"
	for _, tc := range []struct {
		terminal bool
		takes    time.Duration
		want     string
	}{
		{false, 0, ""},
		{false, 1500 * time.Millisecond, line + "\n"},
		{true, 0, ""},
		{true, 600 * time.Millisecond, "\r\033[K" + line + "\r\033[K"},
	} {
		t.Run(fmt.Sprintf("terminal=%t/%s", tc.terminal, tc.takes), func(t *testing.T) {
			t.Parallel()
			var out lockedBuffer
			done := FetchProgress(&out, tc.terminal)(what)
			time.Sleep(tc.takes)
			done()
			time.Sleep(1200 * time.Millisecond) // a timer that fires after done must not write
			if got := out.String(); got != tc.want {
				t.Errorf("wrote %q, want %q", got, tc.want)
			}
		})
	}
}
