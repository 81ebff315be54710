package main

import (
	"context"
	"io"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/internal/render"
)

func runRPC(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, src := newSourceFlags("rpc", false)
	proto := fs.String("proto", "", "read this api.proto `file`; alone, without a tree")
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	opts := src.options(stderr)
	opts.Proto = *proto
	if *proto != "" && !flagSet(fs, "C") {
		opts.Dir = "" // -proto alone: no tree
	}
	rep, err := plegvet.EventStream(ctx, opts)
	if err != nil {
		return fail(stderr, "rpc", err)
	}
	if err := src.relocate(rep, rep.Source); err != nil {
		return fail(stderr, "rpc", err)
	}
	return printAnswer("rpc", stdout, stderr, src.output(stdout), rep, func(w io.Writer) error { return render.RPC(w, rep, writeFindings) }, rep.Source)
}
