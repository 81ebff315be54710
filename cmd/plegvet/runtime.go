package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet"
)

func runRuntime(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("runtime", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	dir := fs.String("C", "", "read the runtime module rooted at this directory (a checkout, a fork) instead of fetching a release; NAME is then optional and VERSION not taken")
	rest, code, ok := parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	usageErr := func(msg string) int { return usageError(stderr, "runtime", "%s (see plegvet runtime -h)", msg) }
	var rep *plegvet.RuntimeReport
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
	return answer("runtime", stdout, stderr, *asJSON, rep, func(w io.Writer) error { return writeRuntime(w, rep) }, rep.Source)
}

func writeRuntime(w io.Writer, rep *plegvet.RuntimeReport) error {
	head := cmp.Or(rep.Runtime, rep.Module)
	if v := rep.Version; v != "" && strings.Contains(v, "://") {
		head = v // containerd://1.7.27 names the runtime itself
	} else if v != "" {
		head += " " + v
	}
	switch {
	case rep.Module != "" && rep.ModuleVersion != "":
		head += ": " + rep.Module + "@" + rep.ModuleVersion
	case rep.Source.Dir != "" && head != rep.Module:
		head += ": " + rep.Module + " in " + rep.Source.Dir
	case rep.Source.Dir != "":
		head += " in " + rep.Source.Dir
	}
	fmt.Fprintln(w, strings.TrimSpace(head))
	switch s := rep.StreamsEvents; {
	case s == nil:
		fmt.Fprintln(w, "Streams events: unknown")
	case *s:
		fmt.Fprintf(w, "Streams events: yes (%s)\n", posText(rep.Pos))
	default:
		fmt.Fprintf(w, "Streams events: no (%s)\n", posText(rep.Pos))
	}
	for _, s := range rep.Servers {
		fmt.Fprintf(w, "\n  %s  %s\n", s.Method, posText(&s.Pos))
		fmt.Fprintf(w, "    %s", s.Shape)
		if s.Evidence != nil {
			fmt.Fprintf(w, " at %s", posText(s.Evidence))
		}
		fmt.Fprintln(w)
		for i, v := range s.Via {
			lead := "    via "
			if i > 0 {
				lead = "        "
			}
			if v.Pos != nil {
				fmt.Fprintf(w, "%s%s: %s\n", lead, posText(v.Pos), v.What)
			} else {
				fmt.Fprintf(w, "%s%s\n", lead, v.What)
			}
		}
	}
	fmt.Fprintf(w, "\n%s\n", wrap(rep.Why, 76))
	return nil
}

func posText(p *plegvet.Pos) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}
