package answer

import (
	"github.com/plegvet/plegvet/runtimestream"
)

// RuntimeReport says whether a container runtime's CRI server can stream
// container events (GetContainerEvents, the rpc the evented PLEG
// subscribes to), read from the runtime's own Go module.
type RuntimeReport struct {
	SchemaVersion int `json:"schemaVersion"`
	// Source is the module read: Dir is module@moduleVersion for a
	// fetched release, the directory as given for a checkout, "" when
	// nothing was read (Load.Mode is then "none").
	Source Source `json:"source"`
	// Runtime is the runtime's name as plegvet knows it (containerd,
	// cri-o), or as given when plegvet does not know it.
	Runtime string `json:"runtime"`
	// Version is the version as given (1.6.20~ds1, containerd://1.7.27).
	Version string `json:"version"`
	// Module is the Go module that holds the runtime's source; "" when
	// plegvet does not know the runtime.
	Module string `json:"module"`
	// ModuleVersion is the upstream release Version was mapped to
	// (v1.6.20 for 1.6.20~ds1), or the Go pseudo-version it is
	// (v2.0.0-20240101000000-abcdef123456, kept whole); "" when none was.
	ModuleVersion string `json:"moduleVersion"`
	// CRIAPI is the k8s.io/cri-api version the module's go.mod requires.
	CRIAPI string `json:"criApi"`
	// StreamsEvents: true when the runtime's CRI server sends events on
	// the stream; false when it answers Unimplemented (itself or through
	// the generated UnimplementedRuntimeServiceServer), ends the stream at
	// once, or has no implementation and builds on a k8s.io/cri-api whose
	// api.proto lacks the rpc; null when plegvet does not know the
	// runtime, the module proxy says the module version does not exist,
	// plegvet found no implementation, or it cannot tell.
	StreamsEvents *bool `json:"streamsEvents"`
	// Pos is the declaration of the method that decides (the first of
	// Servers), or the k8s.io/cri-api requirement in go.mod when the API
	// lacks the rpc; null with StreamsEvents null.
	Pos *Pos `json:"pos"`
	// Why says what decided, in words, with the version mapping.
	Why string `json:"why"`
	// Servers are the GetContainerEvents implementations reached from the
	// module's CRI registrations (containerd 1.7 has two CRI servers).
	Servers []RuntimeServer `json:"servers"`
}

// The runtime's servers are runtimestream's own.
type (
	// RuntimeServer is one implementation of GetContainerEvents.
	RuntimeServer = runtimestream.Server
	// RuntimeStep is one link from a registration to the method: the
	// registration, a wrapper that hands the stream on, a promotion
	// through an embedded field.
	RuntimeStep = runtimestream.Step
)

// Files visits the report's file names (Located).
func (r *RuntimeReport) Files(visit FileVisitor) {
	v := files(visit)
	v.pos(r.Pos)
	v.servers(r.Servers)
}
