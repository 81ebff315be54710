package render

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// FetchProgress is a FetchOptions.Progress that says on stderr (a
// command line's) what a slow run of the go command is fetching: on a
// terminal, a line shown while it runs (after a quarter of a second: a
// module already in the module cache takes less) and erased when it
// ends; elsewhere (a CI log), one line for each run still going after a
// second. Writes are serialised; stderr is not written after done.
func FetchProgress(stderr io.Writer, terminal bool) func(what string) (done func()) {
	var mu sync.Mutex
	delay := time.Second
	if terminal {
		delay = time.Second / 4
	}
	return func(what string) func() {
		shown, ended := false, false
		line := "plegvet: " + what + " with the go command (once per release: the module cache keeps it)"
		time.AfterFunc(delay, func() {
			mu.Lock()
			defer mu.Unlock()
			if ended {
				return
			}
			if terminal {
				fmt.Fprintf(stderr, "\r\033[K%s", line)
			} else {
				fmt.Fprintln(stderr, line)
			}
			shown = true
		})
		return func() {
			mu.Lock()
			defer mu.Unlock()
			ended = true
			if shown && terminal {
				fmt.Fprint(stderr, "\r\033[K")
			}
		}
	}
}
