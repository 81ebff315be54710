package answer

// Alerts is the Prometheus alerting rules for one tree's kubelets
// (plegvet alerts): each rule's PromQL, and the values read from the tree
// that it compares with, each with its constant and declaration.
type Alerts struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	// Minor is the release's minor (v1.36) that each rule matches against
	// the kubelet's kubernetes_build_info{git_version}; "" when the tree's
	// version is not known (a checkout): the rules then match every kubelet.
	Minor string `json:"minor,omitempty"`
	// Group is the rule group's name, one per minor.
	Group string `json:"group"`
	// Gate is the feature gate deciding the evented PLEG; "" without one.
	Gate string `json:"gate,omitempty"`
	// Health is the tree's PLEG health rule, from the report: the
	// annotations quote the kubelet's words from it; null when the report
	// read none.
	Health *Health `json:"health"`
	// Scrape is the scrape layout the rules assume; Window how far back
	// a rule reads the last sample of a series the kubelet stopped
	// exporting (a scrape of /metrics that times out makes every series
	// stale), as a PromQL duration.
	Scrape ScrapeLayout `json:"scrape"`
	Window string       `json:"window"`
	Rules  []AlertRule  `json:"rules"`
	// Unwritten are the rules the tree's kubelet cannot be alerted on, and why.
	Unwritten []Missing `json:"unwritten"`
}

// The kinds of alert (AlertRule.Kind).
const (
	// AlertStalled: the relist has not succeeded for StallFraction of
	// the threshold: the node is on its way to NotReady.
	AlertStalled = "stalled"
	// AlertUnhealthy: the relist has not succeeded for the threshold: the
	// kubelet's "PLEG" health check fails and the node is NotReady.
	AlertUnhealthy = "unhealthy"
	// AlertEventedGaveUp: the evented PLEG's stream failed its last
	// allowed time.
	AlertEventedGaveUp = "evented-gave-up"
	// AlertRelistSlow: relists take longer than their period.
	AlertRelistSlow = "relist-slow"
	// AlertRuntimeHung: the kubelet is alive (an endpoint of it that
	// calls no runtime answers) while its /metrics, whose collectors call
	// the runtime, does not, and its node is NotReady by the kubelet's
	// own word: the runtime is down, hung, or so slow the kubelet
	// declares it down.
	AlertRuntimeHung = "runtime-hung"
	// AlertMetricsDark: the kubelet is alive and its node Ready while its
	// /metrics does not answer: the runtime is slow or hung; the PLEG
	// cannot be seen.
	AlertMetricsDark = "metrics-dark"
	// AlertRuntimeDown: /metrics answers and no runtime Status call
	// succeeded over a window: the kubelet declares the runtime down.
	AlertRuntimeDown = "runtime-down"
	// AlertRuntimeSlow: a quantile of the runtime calls' latency is past
	// the ladder's runtime-down rung.
	AlertRuntimeSlow = "runtime-slow"
)

// The modes a rule is for (AlertRule.Mode): which threshold is in force.
const (
	// ModeAlways: the tree has one threshold, gate off or on.
	ModeAlways = "always"
	// ModeGateOff: the gate is off (or the kubelet does not export it).
	ModeGateOff = "gate-off"
	// ModeGateOn: the gate is on and the evented PLEG has not fallen back.
	ModeGateOn = "gate-on"
	// ModeFallback: the gate is on and the evented PLEG has fallen back
	// to the generic relist after its last allowed stream failure.
	ModeFallback = "fallback"
)

// The signals a rule reads (AlertRule.Signal).
const (
	// SignalLastSeen: time() - kubelet_pleg_last_seen_seconds, the
	// kubelet's own elapsed time since its last successful relist.
	SignalLastSeen = "last-seen"
	// SignalRelistProgress: no relist completed, or every list_podsandbox
	// call failed, over the window; used where last-seen cannot show a
	// stall (HiddenBy).
	SignalRelistProgress = "relist-progress"
	// SignalConnectionErrors: kubelet_evented_pleg_connection_error_count.
	SignalConnectionErrors = "connection-errors"
	// SignalRelistDuration: a quantile of kubelet_pleg_relist_duration_seconds.
	SignalRelistDuration = "relist-duration"
	// SignalScrape: Prometheus's own up series of the kubelet's targets.
	SignalScrape = "scrape"
	// SignalRuntimeErrors: kubelet_runtime_operations_errors_total against
	// kubelet_runtime_operations_total for the runtime's Status calls.
	SignalRuntimeErrors = "runtime-errors"
	// SignalRuntimeLatency: a quantile of
	// kubelet_runtime_operations_duration_seconds.
	SignalRuntimeLatency = "runtime-latency"
)

// The series a rule reads (AlertRule.Needs).
const (
	// NeedsKubelet: the kubelet's own /metrics.
	NeedsKubelet = "kubelet-metrics"
	// NeedsUp: Prometheus's up series of the kubelet's /metrics target.
	NeedsUp = "up"
	// NeedsAlive: the up series of the kubelet's endpoint that calls no
	// runtime (ScrapeLayout.AlivePath).
	NeedsAlive = "up-alive"
	// NeedsReady: kube-state-metrics' kube_node_status_condition for the
	// Ready condition, joined to the kubelet by ScrapeLayout.NodeLabel.
	NeedsReady = "kube-state-metrics"
)

// AlertRule is one alerting rule and what it was built from.
type AlertRule struct {
	Alert    string `json:"alert"`
	Kind     string `json:"kind"`
	Mode     string `json:"mode"`
	Signal   string `json:"signal"`
	Severity string `json:"severity"`
	Expr     string `json:"expr"`
	// For is the rule's for: duration ("5m"); "" for none.
	For string `json:"for,omitempty"`
	// At is what the rule compares with, as a Go duration ("2m0s") or a
	// count ("5").
	At string `json:"at"`
	// Threshold is the health threshold in force in Mode; Period the
	// generic relist period there; Retries the evented PLEG's stream
	// retries. Each is null where the rule does not use it.
	Threshold *Value      `json:"threshold"`
	Period    *Value      `json:"period"`
	Retries   *RetryCount `json:"retries"`
	// HiddenBy is the health check registered on the evented PLEG whose
	// poll sets kubelet_pleg_last_seen_seconds to the time of the poll,
	// so that last-seen cannot show a stalled relist in Mode; null when
	// last-seen shows it.
	HiddenBy *HealthCheck `json:"hiddenBy"`
	// Check is the health check (in Health) that fails when the time since
	// the last successful relist passes Threshold in Mode, and Message the
	// error it then returns; "" and null when none was read (stalled and
	// unhealthy only).
	Check   string         `json:"check,omitempty"`
	Message *HealthMessage `json:"message,omitempty"`
	// OnStreamFailure is what the evented PLEG does after its last allowed
	// stream failure (evented-gave-up only).
	OnStreamFailure *StreamFailure `json:"onStreamFailure,omitempty"`
	// Fallback and FallbackThreshold are what the evented PLEG restores
	// on the generic relist then; null when it restores nothing.
	Fallback          *Value `json:"fallback,omitempty"`
	FallbackThreshold *Value `json:"fallbackThreshold,omitempty"`
	// Hang is what the tree's code says a hung runtime does: the chain
	// from a collector registered on /metrics to a CRI call, the calls'
	// deadline, the node status update's runtime call (runtime-hung
	// only).
	Hang *HangSummary `json:"hang,omitempty"`
	// Needs are the series the rule reads (NeedsKubelet, NeedsUp,
	// NeedsAlive, NeedsReady).
	Needs []string `json:"needs,omitempty"`
	// Dark says how a stalled or unhealthy rule holds while /metrics does
	// not answer: "" (it does not: it needs an answering scrape) or
	// "ready-false" (with the kubelet's own word, its Ready False).
	Dark string `json:"dark,omitempty"`
	// Rungs are the latency ladder's rungs the rule compares with or names
	// (health.ladder; metrics-dark, runtime-hung, runtime-slow).
	Rungs []LadderRung `json:"rungs,omitempty"`
}

// Files visits the answer's file names (Located).
func (a *Alerts) Files(visit FileVisitor) {
	v := files(visit)
	v.health(a.Health)
	for i := range a.Rules {
		r := &a.Rules[i]
		v.value(r.Threshold)
		v.value(r.Period)
		v.retries(r.Retries)
		v.value(r.Fallback)
		v.value(r.FallbackThreshold)
		if r.HiddenBy != nil {
			v.pos(&r.HiddenBy.Pos)
		}
		v.healthMessage(r.Message)
		if f := r.OnStreamFailure; f != nil {
			v.retries(f.After)
			v.pos(f.Pos)
		}
		r.Hang.Files(visit)
	}
}

// ScrapeLayout is how Prometheus scrapes the kubelets, as the rules that
// read the scrape itself (its up series) assume it: the usual
// kube-prometheus layout scrapes each kubelet's /metrics and
// /metrics/cadvisor as one job, told apart by a label holding the path.
type ScrapeLayout struct {
	// Job is the scrape job's name ("kubelet").
	Job string `json:"job"`
	// PathLabel is the label holding each target's metrics path
	// ("metrics_path"); MetricsPath the kubelet's /metrics, whose
	// collectors call the runtime, and AlivePath an endpoint of the same
	// kubelet that calls none (/metrics/cadvisor), whose answer says the
	// kubelet is alive. With PathLabel "", the runtime-hung rule is not
	// written.
	PathLabel   string `json:"pathLabel"`
	MetricsPath string `json:"metricsPath"`
	AlivePath   string `json:"alivePath"`
	// NodeLabel is the label naming the kubelet's node on its targets
	// (kube-prometheus's node), joined with kube-state-metrics' node
	// label; KSMJob the job scraping kube-state-metrics, whose
	// kube_node_status_condition is the node's Ready condition: the
	// kubelet's own word while its /metrics is dark. With either "", no
	// rule reads the Ready condition (Unwritten says which).
	NodeLabel string `json:"nodeLabel"`
	KSMJob    string `json:"ksmJob"`
}

// DefaultScrapeLayout is kube-prometheus's.
func DefaultScrapeLayout() ScrapeLayout {
	return ScrapeLayout{Job: "kubelet", PathLabel: "metrics_path", MetricsPath: "/metrics", AlivePath: "/metrics/cadvisor", NodeLabel: "node", KSMJob: "kube-state-metrics"}
}
