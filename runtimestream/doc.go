// Package runtimestream reads a container runtime's own Go module and
// says whether its CRI server can stream container events: whether
// GetContainerEvents, the rpc an evented PLEG subscribes to, sends events
// or answers Unimplemented.
//
// The module is read the way plegvet reads a Kubernetes tree: from
// source, without compiling it. Its files are scanned for the CRI
// server's marks (a GetContainerEvents method with the server's
// signature, a RegisterRuntimeServiceServer call of k8s.io/cri-api's v1
// API, an embedded UnimplementedRuntimeServiceServer); the packages that
// hold them are type-checked together with internal/load/srcload, every other
// import stubbed. From each registration the value registered is followed
// (through local variables, constructors' returns, struct fields and the
// callers' arguments) to the concrete type that serves the rpc; a method
// that only hands the stream on (an instrumentation wrapper) is followed
// to the one it calls; a method promoted from the generated
// UnimplementedRuntimeServiceServer is noticed as such. Each method
// reached is then judged by its body: it sends on the stream, it returns
// codes.Unimplemented, it never touches the stream (so the stream ends at
// once), or plegvet cannot tell.
//
// Which module holds a runtime's source, and which upstream release a
// reported version (1.6.20~ds1, containerd://1.7.27) was built from, is
// MapVersion's and Runtime.ModulePath's answer; fetching is the go
// command's, through internal/load/release.
package runtimestream
