// Command pgo writes a CPU profile of plegvet's answer on a checkout,
// for cmd/plegvet/default.pgo: the go command builds plegvet with it
// (profile-guided optimization, -pgo=auto), so the functions the answer
// spends its time in are inlined where the profile says they are hot.
// bench/pgo.sh runs it and merges its profile with the standalone
// driver's.
//
// The answer is computed -n times in one process, without the answer
// cache, so that the profile has enough samples; a fresh process spends
// the same code's time, plus first touches of memory no compiler can
// save.
//
// Usage: pgo [-n 40] CHECKOUT PROFILE
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/plegvet/plegvet"
)

func main() {
	n := flag.Int("n", 40, "how many answers to compute")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: pgo [-n 40] CHECKOUT PROFILE")
		os.Exit(2)
	}
	if err := profile(flag.Arg(0), flag.Arg(1), *n); err != nil {
		fmt.Fprintln(os.Stderr, "pgo:", err)
		os.Exit(1)
	}
}

func profile(checkout, file string, n int) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	for range n {
		// No CacheDir: each answer is computed, none is read back.
		if _, err := plegvet.Inspect(context.Background(), plegvet.Options{Dir: checkout}); err != nil {
			pprof.StopCPUProfile()
			f.Close()
			return err
		}
	}
	pprof.StopCPUProfile()
	return f.Close()
}
