package rpcstream

import (
	"fmt"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/criproto"
	"github.com/plegvet/plegvet/plegperiods"
)

// Join links the Go calls to the proto and checks they agree: where
// what no analysis pass can read (the .proto) meets what they found.
func Join(rep *answer.RPCReport, pf *criproto.File, calls []plegperiods.StreamCall) []answer.Diagnostic {
	ds := []answer.Diagnostic{}
	protoStart := answer.Pos{File: rep.Proto, Line: 1, Column: 1}
	for i, c := range calls {
		at := c.Pos
		if rep.RPC != nil {
			rep.RPC.GoCalls = append(rep.RPC.GoCalls, at)
			if i == 0 {
				rep.RPC.GoClient = &answer.GoClient{Method: c.Method, Shape: c.Shape}
				if c.Shape != "unknown" {
					consistent := (c.Shape == "unary") != rep.RPC.ServerStreaming
					rep.RPC.GoClient.Consistent = &consistent
				}
			}
		}
		switch {
		case rep.RPC == nil:
			d := answer.Diagnostic{Category: string(Missing), Pos: at,
				Message: fmt.Sprintf("the evented PLEG consumes %s, but %s declares no such rpc", criproto.EventsRPC, rep.Proto),
				Related: []answer.Related{{Message: "the CRI api.proto read", Pos: protoStart}}}
			// Named like it, but not what the kubelet calls: mentioned, not used.
			if others := pf.Elsewhere(); len(others) > 0 {
				d.Message += " in service " + criproto.RuntimeService + ", the one the kubelet calls"
				for _, o := range others {
					d.Related = append(d.Related, answer.Related{Message: "rpc " + o.FullName() + ": another service's, not called", Pos: o.Pos})
				}
			}
			ds = append(ds, d)
		case !rep.RPC.ServerStreaming || c.Shape == "unary":
			msg := fmt.Sprintf("the Go method %s takes one response, but the rpc streams %s", c.Method, rep.RPC.Response)
			if !rep.RPC.ServerStreaming {
				msg = fmt.Sprintf("the evented PLEG consumes %s as an event stream, but the rpc returns a single %s: it is not server-streaming", criproto.EventsRPC, rep.RPC.Response)
			}
			ds = append(ds, answer.Diagnostic{Category: string(NotStreaming), Pos: at, Message: msg,
				Related: []answer.Related{{Message: "rpc " + criproto.EventsRPC + " declared here", Pos: rep.RPC.Pos}}})
		}
	}
	answer.SortDiagnostics(ds)
	return ds
}
