package answer

// Dashboard is the Grafana dashboard for one tree's kubelets (plegvet
// alerts -o dashboard): each panel's queries, written from the same
// model as the rules (Alerts), and the lines each is drawn against, each
// value with its constant and declaration. The words and Grafana's JSON
// are internal/render's.
type Dashboard struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	// Minor, Group, Gate, Scrape and Window are the rules' (Alerts).
	Minor  string       `json:"minor,omitempty"`
	Group  string       `json:"group"`
	Gate   string       `json:"gate,omitempty"`
	Scrape ScrapeLayout `json:"scrape"`
	Window string       `json:"window"`
	// Ladder is the latency ladder the runtime's panel is drawn against
	// (health.ladder); null when the report read none.
	Ladder *Ladder `json:"ladder"`
	// Variables are the dashboard's variables, as kubernetes-mixin names
	// them; each panel query selects the chosen node with them.
	Variables []DashboardVariable `json:"variables"`
	Panels    []Panel             `json:"panels"`
	// Alerts are the rules' names, whose ALERTS series the alerts panel
	// shows.
	Alerts []string `json:"alerts"`
	// Unwritten are the panels the tree's kubelet cannot be shown on, and why.
	Unwritten []Missing `json:"unwritten"`
}

// The panels (Panel.Kind).
const (
	// PanelRelistAge: the time since the last successful relist, per
	// mode, against the threshold in force (and the stall alert's line).
	PanelRelistAge = "relist-age"
	// PanelRelistDuration: a quantile of the relists' duration, per mode,
	// against the relist period.
	PanelRelistDuration = "relist-duration"
	// PanelRuntimeLatency: a quantile of the CRI calls' latency, per
	// operation, against the latency ladder's rungs.
	PanelRuntimeLatency = "runtime-latency"
	// PanelScrape: up of each of the kubelet's endpoints.
	PanelScrape = "scrape"
	// PanelReady: the node's Ready condition, from kube-state-metrics.
	PanelReady = "ready"
	// PanelEventedStream: the evented PLEG's stream connections and
	// errors, against the retry limit.
	PanelEventedStream = "evented-stream"
	// PanelAlerts: the rules' ALERTS series.
	PanelAlerts = "alerts"
)

// DashboardVariable is one variable: a datasource's type, or a query
// over label values.
type DashboardVariable struct {
	Name       string `json:"name"`
	Datasource string `json:"datasource,omitempty"`
	Query      string `json:"query,omitempty"`
}

// Panel is one panel: its queries and the lines it is drawn against.
type Panel struct {
	Kind    string       `json:"kind"`
	Queries []PanelQuery `json:"queries"`
	Lines   []PanelLine  `json:"lines"`
}

// PanelQuery is one query of a panel; Mode the rules' mode it holds for
// ("" for every mode), Series what its series are per (a label, or "").
type PanelQuery struct {
	Ref    string `json:"ref"`
	Mode   string `json:"mode,omitempty"`
	Expr   string `json:"expr"`
	Series string `json:"series,omitempty"`
}

// PanelLine is a line a panel's series are drawn against: Seconds (or a
// count) for the queries of Mode ("" for all), from the tree's Value,
// Retries or the ladder's Rung; Alert is the rule firing at it, if any.
type PanelLine struct {
	Name    string      `json:"name"`
	Mode    string      `json:"mode,omitempty"`
	At      float64     `json:"at"`
	Alert   string      `json:"alert,omitempty"`
	Value   *Value      `json:"value,omitempty"`
	Retries *RetryCount `json:"retries,omitempty"`
	Rung    *LadderRung `json:"rung,omitempty"`
}

// Files visits the answer's file names (Located).
func (d *Dashboard) Files(visit FileVisitor) {
	v := files(visit)
	for i := range d.Panels {
		for j := range d.Panels[i].Lines {
			l := &d.Panels[i].Lines[j]
			v.value(l.Value)
			v.retries(l.Retries)
		}
	}
}
