package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
)

func runRuntime(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("runtime", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	dir := fs.String("C", "", "read the runtime module rooted at this `dir` (a checkout, a fork) instead of fetching a release; NAME is then optional and VERSION not taken")
	rest, code, ok := parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	usageErr := func(msg string) int { return usageError(stderr, "runtime", "%s (see plegvet runtime -h)", msg) }
	var rep *answer.RuntimeReport
	var err error
	switch {
	case flagSet(fs, "C"):
		if len(rest) > 1 {
			return usageErr(fmt.Sprintf("with -C, at most a NAME; unexpected argument %q", rest[1]))
		}
		name := ""
		if len(rest) == 1 {
			name = rest[0]
		}
		rep, err = plegvet.RuntimeStreamsDir(ctx, name, *dir, fetchOptions(stderr))
	case len(rest) == 1 && strings.Contains(rest[0], "://"):
		rep, err = plegvet.RuntimeStreams(ctx, "", rest[0], fetchOptions(stderr))
	case len(rest) == 2:
		rep, err = plegvet.RuntimeStreams(ctx, rest[0], rest[1], fetchOptions(stderr))
	case len(rest) > 2:
		return usageErr(fmt.Sprintf("unexpected argument %q; want NAME VERSION", rest[2]))
	default:
		return usageErr("want NAME VERSION (containerd 1.7.27), NAME://VERSION (a node's containerRuntimeVersion) or -C DIR")
	}
	if err != nil {
		return fail(stderr, "runtime", err)
	}
	return printAnswer("runtime", stdout, stderr, output{json: *asJSON}, rep, func(w io.Writer) error { return render.Runtime(w, rep) }, rep.Source)
}
