// Package pleg defines an Analyzer that follows the kubelet's PLEG relist
// durations through types and checks that the relist safety net stays.
//
// # Analyzer pleg
//
// pleg: follow PLEG relist periods from pkg/kubelet's constants to the relist loop, and check the safety net
//
// In the pleg package (k8s.io/kubernetes/pkg/kubelet/pleg, or a fork's
// copy at the same path) the pleg analyzer finds the PLEG constructors by
// what their bodies do: a constructor returns a struct whose methods run a
// relist loop (wait.Until, or a timer's Reset, with a duration the struct
// holds: a generic PLEG) or read the CRI container event stream (an
// evented PLEG). It exports a ConstructorFact on each, naming the
// parameter (and field) that feeds the relist period, the health
// threshold, the evented PLEG's stream retries, and the relist duration
// the evented PLEG restores on the generic one after the stream fails.
//
// On the evented constructor the fact also carries what the evented PLEG
// is for, read from the methods reachable from its Start (method calls and
// method values on it, the package's functions, go statements and
// function literals): whether it sends pod lifecycle events (the element
// type of the channel a PLEG's Watch-like method returns), writes the pod
// cache (Set on the type the generic PLEG writes, or kubelet/container's
// Cache), asks the generic PLEG to relist (a call of a generic PLEG method,
// directly or through an interface, that enqueues a request another of its
// methods receives), for which container event types (the tests of a
// ContainerEventType around the calls leading to it) and behind which
// gate (the callee's early return), and what it does once its stream has
// failed as often as its retries allow (hand a relist duration back, or
// stop watching). Its role is event-source when it sends events,
// relist-trigger when it only asks for relists, and unknown, with why,
// otherwise.
//
// In a package that calls those constructors (pkg/kubelet) it resolves each
// argument to its constant (following a local variable and &), reads the
// feature-gate tests each call runs under (if/else, !, && and ||, early
// returns; written inline or held by a local variable, a field or a
// helper function of the package), and joins them into two modes, gate
// off and gate on, with the gate's spec from the facts of the gatefacts
// analyzer (which it requires; featuregate's checks need not run). It
// joins the evented construction with its constructor's role, and finds
// the PLEG health checks the package registers: calls passing a string
// constant and a PLEG's method value of type func() (bool, error), whose
// PLEG is the one the construction assigned to the receiver's variable or
// field.
//
// Relist is level-triggered reconciliation: an event stream is a
// connection to a process that can die and come back having forgotten
// what it did not send, and only relisting resynchronises the kubelet
// with what really runs. The checks guard that safety net:
//
//   - safety-net-gone: with the gate on, no generic relist runs at all, or
//     its period is zero or negative.
//   - threshold-not-above-period: a relist duration whose health
//     threshold is not greater than its period, so the PLEG is declared
//     unhealthy between two relists.
//   - fallback-slower: with the gate on, once the stream has failed for
//     good, the relist that remains (the period the evented PLEG restores,
//     or the safety-net period when it restores none) is slower than the
//     gate-off period.
//   - gate-test-unresolved: the evented PLEG is built, but the test
//     deciding it could not be followed to a feature gate (a field set from
//     several values or a parameter, a call into another package), so
//     plegvet cannot say which PLEG runs; reported at the if, with why.
//   - fallback-unfollowed: the durations the evented PLEG hands over once
//     its stream has failed for good could not be followed to the generic
//     PLEG's relist period (passed to a function value, to another
//     package, to an interface the generic PLEG does not implement), or
//     the period it restores back to its constructor's parameters or a
//     constant, so plegvet cannot say which relist remains; or a call of
//     a function value in the branch its stream errors take, so plegvet
//     cannot say whether it relists at once; reported at the call, with
//     why.
//   - gate-write-unfollowed: the package building the PLEGs sets feature
//     gates in code (the feature-gate API's Set or SetFromMap, as a fork's
//     init may), with a name or value that is not a constant, so plegvet
//     cannot say whether it overrides the gate's default; reported at the
//     call, with why. Writes it can read are part of the answer.
//   - health-unknown: the health method of a PLEG health check
//     pkg/kubelet registers is not the relist-elapsed rule exactly as the
//     releases write it (the time since the PLEG's relist timestamp
//     compared greater than the threshold, the branch returning false
//     with an error of that time and that threshold) nor the evented
//     PLEG's channel-full check, so plegvet cannot say when the node turns
//     NotReady; reported at the registering call, with why naming the
//     method's test.
//   - gate-note: informational, at the gate's test, off unless -note is
//     set: the gate's stage and default and what turning it on does to
//     the relist period, such as
//     "EventedPLEG (Alpha, default false): generic relist 1s -> 5m0s when on (x300)".
//
// Findings in _test.go files are not reported: tests build odd values on
// purpose, and the checks guard the code that ships.
//
// Values that are not compile-time constants (flags, computed values) are
// reported as unresolved and never checked against guesses.
package pleg

import "github.com/plegvet/plegvet/internal/analysis/check"

// The checks, named as the bullets above name them (a test holds the two
// lists together).
const (
	SafetyNetGone           check.Check = "safety-net-gone"
	ThresholdNotAbovePeriod check.Check = "threshold-not-above-period"
	FallbackSlower          check.Check = "fallback-slower"
	GateTestUnresolved      check.Check = "gate-test-unresolved"
	FallbackUnfollowed      check.Check = "fallback-unfollowed"
	GateWriteUnfollowed     check.Check = "gate-write-unfollowed"
	HealthUnknown           check.Check = "health-unknown"
	GateNote                check.Check = "gate-note"
)
