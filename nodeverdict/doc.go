// Package nodeverdict decides which PLEG a live kubelet runs, from what a
// node engineer captures off the node (the kubelet's configz, its /metrics,
// and crictl version -o json) joined with facts read from Kubernetes
// source: the EventedPLEG gate's spec at the kubelet's version and the
// relist periods each mode configures.
//
// It holds the readers of the three captures (pure functions over bytes
// that name the file in their one-line errors) and Decide, the decision
// rules. It loads no source itself: package plegvet's Node does, and hands
// the facts over as GateState and Periods.
//
// Every rule yields a Reason that says whether its evidence agrees with
// the mode the gate configures. The verdict is that mode ("generic" or
// "evented") when no reason disagrees, and "inconsistent" otherwise.
//
// A runtime name in crictl's output that plegvet does not recognise
// (anything but containerd, cri-o and docker, the name cri-dockerd
// reports) is not an error: CRI is an open interface, so it becomes a
// note among the reasons. A crictl file without a runtimeName, though, is
// not crictl version output, and is an error.
package nodeverdict
