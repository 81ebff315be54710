// Package criproto reads the CRI api.proto (k8s.io/cri-api's
// pkg/apis/runtime/v1/api.proto) and finds the event stream the evented
// PLEG consumes: the server-streaming RPC
// GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse),
// its messages' fields and the ContainerEventType enum, with positions in
// the real file.
//
// It parses with github.com/emicklei/proto, and reads both the older
// file that imports gogo.proto (the import is not resolved) and the newer
// one without it. A malformed file is an error naming file:line:column and
// what the parser expected; it never panics.
//
// The Go side (the calls of the CRI client's GetContainerEvents in the
// evented PLEG) is found by the pleg analyzer; a go/analysis pass cannot
// read a .proto file (Pass.ReadFile allows only the package's own files),
// so the two are joined in the library (plegvet.RPC), not in an analyzer.
package criproto
