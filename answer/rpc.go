package answer

import (
	"github.com/plegvet/plegvet/criproto"
)

// RPCReport is the CRI event stream as the tree's api.proto declares it,
// joined with the Go code that consumes it.
type RPCReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	// RPC is null when the proto's runtime.v1.RuntimeService declares no
	// GetContainerEvents (another service's is not it).
	RPC *RPC `json:"rpc"`
	// Proto is the api.proto read, relative to the checkout root.
	Proto string `json:"proto"`
	// Diagnostics are the findings of joining the proto with the Go code.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// RPC is GetContainerEvents and what surrounds it: the rpc as the proto
// declares it, its messages' fields and event types, and its Go calls.
type RPC struct {
	criproto.RPC
	RequestFields  []ProtoField `json:"requestFields"`
	ResponseFields []ProtoField `json:"responseFields"`
	EventTypes     []EventType  `json:"eventTypes"`
	// GoCalls are the calls of the CRI client's GetContainerEvents in the
	// evented PLEG.
	GoCalls []Pos `json:"goCalls"`
	// GoClient is the Go method those calls reach; null without calls.
	GoClient *GoClient `json:"goClient"`
}

type (
	// ProtoField is a field of a message.
	ProtoField = criproto.Field
	// EventType is a value of ContainerEventType.
	EventType = criproto.EnumValue
)

// GoClient is how the Go method hands over the stream.
type GoClient struct {
	// Method is the Go method as its source declares it, qualified by its
	// receiver; "" when its package was not loaded.
	Method string `json:"method"`
	// Shape: "stream" (returns a value with Recv), "channel" (fills a
	// channel from the stream), "unary", or "unknown".
	Shape string `json:"shape"`
	// Consistent says whether the shape agrees with the proto's
	// server-streaming flag; null when the shape is unknown.
	Consistent *bool `json:"consistent"`
}

// Files visits the report's file names (Located).
func (r *RPCReport) Files(visit FileVisitor) {
	v := files(visit)
	v.rpc(r.RPC)
	v.diagnostics(r.Diagnostics)
}
