package render

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet/answer"
)

// Runtime prints plegvet runtime: whether the runtime streams container
// events, each server found, and why.
func Runtime(w io.Writer, rep *answer.RuntimeReport) error {
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
		fmt.Fprintf(w, "Streams events: yes (%s)\n", Place(rep.Pos))
	default:
		fmt.Fprintf(w, "Streams events: no (%s)\n", Place(rep.Pos))
	}
	for _, s := range rep.Servers {
		fmt.Fprintf(w, "\n  %s  %s\n", s.Method, Place(&s.Pos))
		fmt.Fprintf(w, "    %s", s.Shape)
		if s.Evidence != nil {
			fmt.Fprintf(w, " at %s", Place(s.Evidence))
		}
		fmt.Fprintln(w)
		for i, v := range s.Via {
			lead := "    via "
			if i > 0 {
				lead = "        "
			}
			if v.Pos != nil {
				fmt.Fprintf(w, "%s%s: %s\n", lead, Place(v.Pos), v.What)
			} else {
				fmt.Fprintf(w, "%s%s\n", lead, v.What)
			}
		}
	}
	fmt.Fprintf(w, "\n%s\n", Wrap(rep.Why, FitTo(w, 76, 0)))
	return nil
}

// Place is a position as named, file:line:column even for a web address;
// "-" for none.
func Place(p *answer.Pos) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}
