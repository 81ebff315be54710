package driver

import (
	"os"
	"runtime/debug"
	"sync"
)

// leanGCPercent and leanMemoryLimit are the collector's settings for the
// lean load, as for plegvet's subcommands (cmd/plegvet's tuneGC): the
// heap may grow to five times what is live before a collection, under a
// 1 GiB soft limit. The lean load's heap is the load itself, kept to the
// end of the run, so collecting it as it grows frees little: on a v1.37.2
// checkout, `plegvet ./pkg/...` ran 13 collections at Go's default
// (GOGC=100), a fifth of its own CPU, and 3 at 400, for 12% less CPU in
// all (go list's included) and a peak RSS of 300-400 MiB instead of
// 275-290 (bench/README.md, issue 43).
const (
	leanGCPercent   = 400
	leanMemoryLimit = 1 << 30
)

// leanGC sets the collector for the lean load, unless GOGC or GOMEMLIMIT
// say otherwise, and returns what puts back the settings it changed: the
// go/packages loader, whose loads are ten times larger, keeps Go's
// defaults, and so does a program that called Run once it returns.
func leanGC() (restore func()) {
	var undo []func()
	if _, set := os.LookupEnv("GOGC"); !set {
		old := debug.SetGCPercent(leanGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		old := debug.SetMemoryLimit(leanMemoryLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(old) })
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for _, u := range undo {
				u()
			}
		})
	}
}
