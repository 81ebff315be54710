// Package plegperiods follows the kubelet's PLEG relist durations through
// types: from the constants of pkg/kubelet, through the values passed to
// the PLEG constructors of pkg/kubelet/pleg inside the feature gate's
// branches, to the relist loop, the health threshold and the evented
// PLEG's fallback that consume them.
//
// It works in two steps, as the analysis does. Constructors reads the pleg
// package: for each function that builds a PLEG struct, which parameter
// (and which field of it) feeds the relist loop's period, the health
// threshold, the evented PLEG's stream retries and the period it restores
// when the stream fails. Constructions reads a package that calls those
// constructors (pkg/kubelet): the value each argument resolves to, and the
// feature-gate conditions each call runs under. Modes joins them into the
// two modes a kubelet can run in, gate off and gate on.
//
// The evented PLEG's role is read the same way (EventLoop, whose
// EventedRole the evented constructor's Shape carries): from what the
// methods reachable from its Start do, whether it sends pod lifecycle
// events (event-source, v1.26 to v1.36), only asks the generic PLEG to
// relist (relist-trigger, v1.37), or neither (unknown, with why);
// EventedRoleOf joins it with the kubelet's construction and the PLEG
// health check it registers.
//
// The kubelet's PLEG health rule is read the same way (HealthOf): each
// PLEG's health method (func() (bool, error)) by what its ifs test (a zero
// time, a duration against a threshold, a channel's length against its
// capacity) and the errors they return; the checks pkg/kubelet registers,
// joined with the threshold of each mode or the channel's capacity; the
// method that runs the checks (how it words a failure, its runtime-down
// branch and threshold), the sync loop that skips on its error and the
// Ready condition it is handed to; and the relist's list call and state
// comparison, the evidence of level-triggered reconciliation.
//
// The types are the answers': each carries its positions resolved
// (srcpos.Pos) and its JSON form, and the plegvet package prints them
// as they are. What only the analysis of the package read needs (syntax,
// token positions) is kept beside them, out of the JSON.
//
// Nothing is found by the names of variables or constants: constructors
// are known by what their bodies do, calls by the function they call,
// values by go/types' constant folding. A value that is not a compile-time
// constant is reported as unresolved, with the reason.
package plegperiods
