package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/plegvet/plegvet"
)

// interrupted is the cause of a context ended by a signal.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string { return e.sig.String() + " signal received" }

// exitCode is the shell's code for death by the signal: 128 + its
// number, 130 for SIGINT and 143 for SIGTERM.
func (e interrupted) exitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok && s > 0 && s < 128 {
		return 128 + int(s)
	}
	return exitInterrupted
}

// onSignal is like signal.NotifyContext for SIGINT and SIGTERM, but the
// context's cause says which signal ended it, for the exit code. A second
// signal, after the first has been handled, gets the default action (the
// process dies at once, possibly leaving a temporary directory behind).
func onSignal(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch) // a second signal kills, as usual
			cancel(interrupted{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// signalled returns the signal that ended ctx, if one did.
func signalled(ctx context.Context) (interrupted, bool) {
	var in interrupted
	ok := errors.As(context.Cause(ctx), &in)
	return in, ok
}

// untilSignal passes writes on until a signal ends ctx, then drops them:
// what a subcommand prints after that (errors saying the fetch was
// cancelled, rows of a timeline it abandoned) is noise, not an answer.
type untilSignal struct {
	ctx context.Context
	w   io.Writer
}

func (u untilSignal) Write(p []byte) (int, error) {
	if _, ok := signalled(u.ctx); ok {
		return len(p), nil
	}
	return u.w.Write(p)
}

// parseFetchOptions reads PLEGVET_FETCH_TIMEOUT (a Go duration; 0 means
// no limit; unset or empty, plegvet.DefaultFetchTimeout) into the
// options every fetch of a subcommand runs with.
func parseFetchOptions() (plegvet.FetchOptions, error) {
	s := os.Getenv("PLEGVET_FETCH_TIMEOUT")
	if s == "" {
		return plegvet.FetchOptions{}, nil
	}
	const want = "want a Go duration such as 10m or 90s (0: no limit)"
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return plegvet.FetchOptions{}, fmt.Errorf("PLEGVET_FETCH_TIMEOUT=%q: not a duration; %s", s, want)
	case d < 0:
		// FetchOptions would take it as no limit, which only 0 asks for.
		return plegvet.FetchOptions{}, fmt.Errorf("PLEGVET_FETCH_TIMEOUT=%q: a negative duration; %s", s, want)
	}
	if d == 0 {
		d = -1 // the environment's 0 is FetchOptions' "no limit"
	}
	return plegvet.FetchOptions{Timeout: d}, nil
}

// fetchOptions are the options of every fetch: PLEGVET_FETCH_TIMEOUT,
// which runSubcommand checked before the subcommand ran, and progress on
// stderr.
func fetchOptions(stderr io.Writer) plegvet.FetchOptions {
	o, _ := parseFetchOptions()
	o.Progress = plegvet.FetchProgress(stderr, isTerminal(stderr))
	return o
}
