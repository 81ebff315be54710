package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// PrometheusPort is where the harness's Prometheus serves, on loopback.
const PrometheusPort = 19090

// Prometheus is Debian's Prometheus server scraping the registered
// kubelet's /metrics (https, anonymous, as the harness's kubelet allows)
// and evaluating a rules file.
type Prometheus struct {
	Dir  string
	proc *Process
}

// StartKubePrometheus starts Prometheus in kube-prometheus's layout, the
// one `plegvet alerts` writes its rules for by default: one job, kubelet,
// with two endpoints of the same kubelet told apart by the metrics_path
// label, /metrics and /metrics/cadvisor, scraped (and the rules
// evaluated) every interval, and waits until both answered.
func StartKubePrometheus(ctx context.Context, dir, rules string, interval time.Duration) (*Prometheus, error) {
	return StartPrometheusLayout(ctx, dir, rules, PromLayout{Interval: interval, KubePrometheus: true})
}

// PromLayout is what Prometheus scrapes and how often: the kubelet every
// Interval with a scrape timeout of Interval (rules evaluated as often),
// in kube-prometheus's layout when KubePrometheus, and kube-state-metrics
// at KubeStateMetrics (host:port) as job kube-state-metrics when set.
type PromLayout struct {
	Interval         time.Duration
	KubePrometheus   bool
	KubeStateMetrics string
}

// StartPrometheusLayout starts Prometheus scraping as layout says and
// waits until every target answered.
func StartPrometheusLayout(ctx context.Context, dir, rules string, layout PromLayout) (*Prometheus, error) {
	interval, kubePrometheus := layout.Interval, layout.KubePrometheus
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ruleFiles := "[]"
	if rules != "" {
		ruleFiles = fmt.Sprintf("[%q]", rules)
	}
	targets := 1
	conf := fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: %s
  evaluation_interval: %s
rule_files: %s
scrape_configs:
- job_name: kubelet
  scheme: https
  tls_config:
    insecure_skip_verify: true
  static_configs:
  - targets: ['%s:%d']
    labels:
      node: %s
`, interval, interval, interval, ruleFiles, NodeIP, KubeletPort, NodeName)
	if kubePrometheus {
		targets = 2
		conf = fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: %s
  evaluation_interval: %s
rule_files: %s
scrape_configs:
- job_name: kubelet
  scheme: https
  tls_config:
    insecure_skip_verify: true
  static_configs:
  - targets: ['%[5]s:%[6]d']
    labels:
      node: %[7]s
      __metrics_path__: /metrics
  - targets: ['%[5]s:%[6]d']
    labels:
      node: %[7]s
      __metrics_path__: /metrics/cadvisor
  relabel_configs:
  - source_labels: [__metrics_path__]
    target_label: metrics_path
`, interval, interval, interval, ruleFiles, NodeIP, KubeletPort, NodeName)
	}
	if layout.KubeStateMetrics != "" {
		targets++
		// As kube-prometheus's ServiceMonitor does: the object's labels
		// (node, condition, status) win over the target's.
		conf += fmt.Sprintf(`- job_name: kube-state-metrics
  honor_labels: true
  static_configs:
  - targets: ['%s']
`, layout.KubeStateMetrics)
	}
	file := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("prometheus", "--config.file="+file, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", PrometheusPort))
	p, err := Start("prometheus", cmd, filepath.Join(dir, "prometheus.log"))
	if err != nil {
		return nil, err
	}
	pr := &Prometheus{Dir: dir, proc: p}
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for {
		ts, err := pr.Targets(ctx)
		up := 0
		for _, t := range ts {
			if t.Health == "up" {
				up++
			}
		}
		if err == nil && len(ts) == targets && up == targets {
			return pr, nil
		}
		last = fmt.Sprintf("%v %+v", err, ts)
		if done, werr := p.Exited(); done {
			return nil, fmt.Errorf("prometheus exited: %v\n%s", werr, p.Tail(20))
		}
		if time.Now().After(deadline) {
			pr.Stop()
			return nil, fmt.Errorf("prometheus did not scrape its targets within 60s: %s\n%s", last, p.Tail(10))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Stop stops Prometheus.
func (pr *Prometheus) Stop() {
	if pr.proc != nil {
		pr.proc.Stop()
		pr.proc = nil
	}
}

// Alert is an alert Prometheus holds active: pending, or firing.
type Alert struct {
	Name     string            `json:"name"`
	State    string            `json:"state"`
	ActiveAt time.Time         `json:"activeAt"`
	Value    string            `json:"value"`
	Labels   map[string]string `json:"labels"`
}

// Alerts reads the active alerts (the HTTP API's /api/v1/alerts).
func (pr *Prometheus) Alerts(ctx context.Context) ([]Alert, error) {
	var data struct {
		Alerts []Alert `json:"alerts"`
	}
	if err := pr.api(ctx, "/api/v1/alerts", &data); err != nil {
		return nil, err
	}
	for i := range data.Alerts {
		data.Alerts[i].Name = data.Alerts[i].Labels["alertname"]
	}
	return data.Alerts, nil
}

// api GETs a path of the HTTP API and decodes its data into v.
func (pr *Prometheus) api(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", PrometheusPort, path), nil)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	var envelope struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(body, &envelope); err != nil {
		return fmt.Errorf("GET %s: %d %s", path, resp.StatusCode, LastLines(body, 3))
	}
	if envelope.Status != "success" {
		return fmt.Errorf("GET %s: %s", path, envelope.Error)
	}
	return json.Unmarshal(envelope.Data, v)
}

// Target is one of Prometheus's active targets, as /api/v1/targets
// gives it.
type Target struct {
	Labels             map[string]string `json:"labels"`
	ScrapeURL          string            `json:"scrapeUrl"`
	Health             string            `json:"health"`
	LastError          string            `json:"lastError"`
	LastScrape         time.Time         `json:"lastScrape"`
	LastScrapeDuration float64           `json:"lastScrapeDuration"`
}

// Targets reads the active targets.
func (pr *Prometheus) Targets(ctx context.Context) ([]Target, error) {
	var data struct {
		ActiveTargets []Target `json:"activeTargets"`
	}
	err := pr.api(ctx, "/api/v1/targets", &data)
	return data.ActiveTargets, err
}

// Sample is one series of an instant query's answer.
type Sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// Query runs an instant query.
func (pr *Prometheus) Query(ctx context.Context, expr string) ([]Sample, error) {
	var data struct {
		Result []Sample `json:"result"`
	}
	err := pr.api(ctx, "/api/v1/query?query="+url.QueryEscape(expr), &data)
	return data.Result, err
}
