// Package nodeverdict decides which PLEG a live kubelet runs, from what a
// node engineer captures off the node (the kubelet's configz, its /metrics,
// and what crictl version prints) joined with facts read from Kubernetes
// source: the EventedPLEG gate's spec at the kubelet's version, the relist
// periods each mode configures, and what the release's evented PLEG does.
//
// It holds the readers of the three captures (pure functions over bytes
// that name the file in their one-line errors) and Decide, the decision
// rules. It loads no source itself: package plegvet's Node does, and hands
// the facts over as Gate and Periods.
//
// Decide first predicts the verdict from the gate, the evented PLEG's
// design and what became of the event stream (Decision.Expected), one of
//
//   - generic: the generic PLEG relists alone (the gate is off, or the
//     source builds no evented PLEG);
//   - evented: an evented PLEG that emits events runs, the relist slowed to
//     the safety-net period;
//   - generic-with-event-hints: the gate is on, but the release's evented
//     PLEG only asks the generic PLEG to relist (v1.37);
//   - fell-back: the gate is on, but the stream failed as often as the
//     source allows (or the runtime's own source cannot stream, so it
//     will), and the generic PLEG relists alone at what the source
//     restores, or keeps, then.
//
// Every rule then yields a Reason: the PLEG its evidence points to, and
// whether it agrees with that prediction (a note bears on neither). The
// verdict is the prediction when no reason disagrees, and the fifth,
// inconsistent, otherwise.
//
// Decide also says whether the PLEG is healthy at the capture's time
// (Decision.Health): the time since its last successful relist
// (kubelet_pleg_last_seen_seconds) against the threshold the source holds
// the generic PLEG to in the predicted verdict, in the kubelet's own words
// when the source gives them (HealthWords), with what the scrape's CRI
// calls and relist durations say stalls it. The capture's time is handed
// in (Input.At), or read from the metrics' "# scraped at" line; never a
// file's mtime.
//
// When the kubelet's /metrics did not answer (Input.Failure), the PLEG's
// health is the kubelet's own word, its Node's Ready condition, never the
// age of the last scrape that answered: dark is not dead (darkhealth.go).
// The runtime's state tells slow from hung by what the source says must
// follow a hang (the latency ladder's HangNotReady window, counted from
// the last scrape that answered), and a failed request is evidence about
// the runtime only when it reached the kubelet's handler (Reach). From a
// scrape that answered, the kubelet's call durations give a slow
// runtime's latency, placed on the ladder (darkruntime.go).
//
// A runtime name in crictl's output that plegvet does not recognise
// (anything but containerd, cri-o and docker, the name cri-dockerd
// reports) is not an error: CRI is an open interface, so it becomes a
// note among the reasons. A crictl file without a runtime name, though,
// is not crictl version output, and is an error.
package nodeverdict
