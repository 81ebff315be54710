package main

import (
	"context"
	"io"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/render"
)

func runPeriods(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("periods", false)
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	rep, err := plegvet.Periods(ctx, src.options(stderr))
	if err != nil {
		return fail(stderr, "periods", err)
	}
	if err := src.relocate(rep, rep.Source); err != nil {
		return fail(stderr, "periods", err)
	}
	return printAnswer("periods", stdout, stderr, src.output(stdout), rep, func(w io.Writer) error { return render.Periods(w, rep, writeFindings) }, rep.Source)
}
