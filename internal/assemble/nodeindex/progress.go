package nodeindex

import (
	"fmt"
	"io"
	"time"
)

// progress writes Update's lines: releases done of all, what became of
// each, the bytes fetched so far and the time left at the pace so far.
type progress struct {
	w         io.Writer
	fetched   func() int64
	done, all int
	began     time.Time
	kept      int // releases kept as they were: no time spent
}

func newProgress(opts Options, all int) *progress {
	return &progress{w: opts.Progress, fetched: opts.Fetched, all: all, began: time.Now()}
}

// line says that release r is done, what says how.
func (p *progress) line(r, what string) {
	p.done++
	if what == "kept" {
		p.kept++
	}
	if p.w == nil {
		return
	}
	s := fmt.Sprintf("[%d/%d] %s: %s", p.done, p.all, r, what)
	if p.fetched != nil {
		s += fmt.Sprintf("; fetched %s so far", bytesWords(p.fetched()))
	}
	elapsed := time.Since(p.began)
	s += fmt.Sprintf("; %s elapsed", elapsed.Round(time.Second))
	if worked := p.done - p.kept; worked > 0 && p.done < p.all {
		left := elapsed / time.Duration(worked) * time.Duration(p.all-p.done)
		s += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	fmt.Fprintln(p.w, s)
}

// bytesWords words a byte count in the unit that suits it.
func bytesWords(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
