package bundlecheck

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
)

// root is plegvet's module, whose command writes the bundle.
var root = filepath.Join("..", "..")

// bundle runs plegvet alerts -o bundle with args into a new directory and
// returns its PrometheusRule's and ConfigMap's files.
func bundle(t *testing.T, args ...string) (rule, configMap string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", append([]string{"run", "./cmd/plegvet", "alerts", "-o", "bundle", "-dir", dir}, args...)...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("plegvet alerts -o bundle %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	files := strings.Fields(stdout.String())
	if len(files) != 2 || !strings.HasSuffix(files[0], "-prometheusrule.yaml") || !strings.HasSuffix(files[1], "-dashboard.yaml") {
		t.Fatalf("plegvet alerts -o bundle printed %q; want its two files", files)
	}
	return files[0], files[1]
}

// decodeStrict decodes a YAML file into v through its JSON, as the API
// server reads a manifest: every field known to v's type, none mistyped.
func decodeStrict(t *testing.T, file string, v any) error {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// checkBundle decodes a bundle's files strictly into prometheus-operator's
// and k8s.io/api's types and checks what each holds.
func checkBundle(t *testing.T, rule, configMap string) {
	t.Helper()
	var pr monitoringv1.PrometheusRule
	if err := decodeStrict(t, rule, &pr); err != nil {
		t.Fatalf("%s does not decode strictly into monitoringv1.PrometheusRule: %v", rule, err)
	}
	if pr.APIVersion != "monitoring.coreos.com/v1" || pr.Kind != monitoringv1.PrometheusRuleKind || pr.Name == "" || len(pr.Spec.Groups) != 1 || len(pr.Spec.Groups[0].Rules) == 0 {
		t.Fatalf("%s: %+v", rule, pr)
	}
	for _, r := range pr.Spec.Groups[0].Rules {
		if r.Alert == "" || r.Expr.String() == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
			t.Errorf("%s: a rule without its name, expression, severity or summary: %+v", rule, r)
		}
	}
	var cm corev1.ConfigMap
	if err := decodeStrict(t, configMap, &cm); err != nil {
		t.Fatalf("%s does not decode strictly into corev1.ConfigMap: %v", configMap, err)
	}
	if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" || cm.Labels["grafana_dashboard"] != "1" || len(cm.Data) != 1 {
		t.Fatalf("%s: not a ConfigMap labelled grafana_dashboard: \"1\" holding one dashboard: %+v", configMap, cm.ObjectMeta)
	}
	for key, js := range cm.Data {
		var d struct {
			UID    string            `json:"uid"`
			Panels []json.RawMessage `json:"panels"`
		}
		if err := json.Unmarshal([]byte(js), &d); err != nil || key != d.UID+".json" || d.UID != cm.Name || len(d.Panels) == 0 {
			t.Errorf("%s: %s is not the dashboard named by its uid (%v)", configMap, key, err)
		}
	}
}

// The look-alike checkout's bundle decodes strictly; a field the types
// do not know is an error (the decoding is strict).
func TestBundleDecodesStrictly(t *testing.T) {
	rule, configMap := bundle(t, "-C", filepath.Join("testdata", "src", "k8s.io", "kubernetes"))
	checkBundle(t, rule, configMap)
	for _, f := range []string{rule, configMap} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bad := filepath.Join(t.TempDir(), "bad.yaml")
		if err := os.WriteFile(bad, bytes.Replace(b, []byte("metadata:\n"), []byte("metadata:\n  unknownField: x\n"), 1), 0o666); err != nil {
			t.Fatal(err)
		}
		var v any = &corev1.ConfigMap{}
		if f == rule {
			v = &monitoringv1.PrometheusRule{}
		}
		if err := decodeStrict(t, bad, v); err == nil {
			t.Errorf("%s with an unknown field decoded", f)
		}
	}
}

// The bundles of two releases decode strictly.
func TestBundleReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches Kubernetes releases")
	}
	for _, v := range []string{"v1.37.2", "v1.36.5"} {
		t.Run(v, func(t *testing.T) {
			rule, configMap := bundle(t, "-k8s", v)
			checkBundle(t, rule, configMap)
		})
	}
}
