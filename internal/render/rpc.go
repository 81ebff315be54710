package render

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet/answer"
)

// RPC prints plegvet rpc: the rpc, its messages and event types, the Go
// calls of it, then findings.
func RPC(w io.Writer, rep *answer.RPCReport, findings Findings) error {
	sourceHeader(w, "rpc", rep.Source, rep.Proto)
	r := rep.RPC
	if r == nil {
		fmt.Fprintf(w, "%s declares no GetContainerEvents rpc: there is no event stream for an evented PLEG.\n", rep.Proto)
	} else {
		fmt.Fprintf(w, "rpc %s.%s(%s%s) returns (%s%s)\n", r.Service, r.Name, stream(r.ClientStreaming), r.Request, stream(r.ServerStreaming), r.Response)
		fmt.Fprintf(w, "  declared at %s\n", r.Pos)
		if r.Comment != "" {
			fmt.Fprintf(w, "  // %s\n", strings.ReplaceAll(r.Comment, "\n", "\n  // "))
		}
		shape := "a unary call"
		if r.ServerStreaming {
			shape = "server-streaming: one request, then events as they happen, for as long as the connection lives"
		}
		fmt.Fprintf(w, "  %s\n\n", shape)
		fields := func(name string, fs []answer.ProtoField) {
			fmt.Fprintf(w, "message %s", name)
			if len(fs) == 0 {
				fmt.Fprintln(w, " {}")
				return
			}
			fmt.Fprintln(w)
			for _, f := range fs {
				typ := f.Type
				if f.Repeated {
					typ = "repeated " + typ
				}
				fmt.Fprintf(w, "  %-4d %-26s %s  (line %d)\n", f.Number, f.Name, typ, f.Pos.Line)
			}
		}
		fields(r.Request, r.RequestFields)
		fields(r.Response, r.ResponseFields)
		if len(r.EventTypes) > 0 {
			var evs []string
			for _, e := range r.EventTypes {
				evs = append(evs, fmt.Sprintf("%s=%d", e.Name, e.Number))
			}
			fmt.Fprintf(w, "enum ContainerEventType: %s\n", strings.Join(evs, ", "))
		}
		fmt.Fprintln(w)
		if len(r.GoCalls) == 0 {
			fmt.Fprintln(w, "No evented PLEG in the tree calls it.")
		}
		for _, c := range r.GoCalls {
			fmt.Fprintf(w, "called by the evented PLEG at %s\n", c)
		}
		if g := r.GoClient; g != nil {
			fmt.Fprintf(w, "  Go method: %s\n  hands over the stream as: %s", cmp.Or(g.Method, "(method type not loaded)"), g.Shape)
			if g.Consistent != nil {
				if *g.Consistent {
					fmt.Fprint(w, " (consistent with the proto)")
				} else {
					fmt.Fprint(w, " (NOT consistent with the proto)")
				}
			}
			fmt.Fprintln(w)
		}
	}
	findings(w, rep.Diagnostics...)
	return nil
}

// stream is the proto's word for a streaming side of an rpc.
func stream(streaming bool) string {
	if streaming {
		return "stream "
	}
	return ""
}
