// Package ladder computes a kubelet's latency ladder: for a container
// runtime that answers every CRI call late, by L, which of the kubelet's
// signals breaks first, and at which L each of the others follows.
//
// A runtime that is slow (IO pressure, an overloaded runtime, hundreds of
// containers) is not a hung one: every call answers, so the kubelet's
// loops go on, each slowed by the calls it makes one after another. The
// rungs, lowest first in every release read so far:
//
//   - metrics-dark: a /metrics scrape makes ScrapeCalls calls one after
//     another, so it takes ScrapeCalls*L and passes the scrape timeout
//     long before anything else breaks; the kubelet is fine meanwhile.
//   - runtime-down: the runtime status loop refreshes its sync time after
//     its Status call returns and sleeps StatusPeriod before the next, so
//     the sync time's age reaches StatusPeriod+StatusCalls*L; past the
//     runtime-down threshold, the node status update that reads it then
//     posts Ready False ("container runtime is down"): Ready flaps.
//   - pleg-unhealthy: the relist stores its start time once its list calls
//     returned; the next relist starts RelistPeriod after the last ended,
//     so the stored time is at most RelistPeriod + 2*RelistListCalls*L +
//     N*PodCalls*L old (N pods changed, each inspected by PodCalls calls),
//     and past the relist threshold the PLEG is not healthy.
//   - deadline: a call that takes runtimeRequestTimeout fails, and the
//     runtime is, to the kubelet, hung.
//
// The inputs are read from each release's source (the calls each loop
// makes, the constants, the configuration defaults) and from a node's
// configz (its settings, and the feature gates it turns on: a scrape's
// calls behind a gate off by default are counted in ScrapeCallsGated,
// not ScrapeCalls); the ladder itself is arithmetic over them. It is pure: no
// I/O, no source.
package ladder
