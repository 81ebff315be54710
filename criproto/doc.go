// Package criproto reads the CRI api.proto (k8s.io/cri-api's
// pkg/apis/runtime/v1/api.proto) and finds the event stream the evented
// PLEG consumes: the server-streaming RPC
// GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse),
// its messages' fields and the ContainerEventType enum, with positions in
// the real file.
//
// The rpc is taken by its full name, runtime.v1.RuntimeService.GetContainerEvents,
// the method the kubelet calls: one of the same name in another service
// (or another package, such as the runtime.v1alpha2 file that old cri-api
// releases ship beside v1) is not it. An rpc, service or package declared
// twice is an error naming both positions, as protoc refuses such a file.
//
// It parses with github.com/emicklei/proto, and reads both the older
// file that imports gogo.proto (the import is not resolved) and the newer
// one without it; internal/load/protofile reads it from disk, only a
// regular file of at most MaxFileSize bytes
// (a named pipe is never opened). A malformed file is one error line,
// file:line:column and what is wrong (invalid UTF-8 included); it never
// panics.
//
// The Go side (the calls of the CRI client's GetContainerEvents in the
// evented PLEG) is found by the pleg analyzer; a go/analysis pass cannot
// read a .proto file (Pass.ReadFile allows only the package's own files),
// so the two are joined in the library (answer.RPC), not in an analyzer.
package criproto
