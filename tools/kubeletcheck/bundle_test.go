package kubeletcheck

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// TestBundleOnARealAPIServer installs `plegvet alerts -o bundle`'s two
// files into a real kube-apiserver of the release: prometheus-operator's
// published PrometheusRule CRD first (testdata/crd), then the
// PrometheusRule and the dashboard's ConfigMap, each created (201) and
// read back with the spec and data it was given: the server's schema
// validation (the CRD's structural schema, the ConfigMap's) accepts what
// plegvet writes, and prunes nothing of it.
func TestBundleOnARealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a kube-apiserver")
	}
	p := prepare(t)
	const release = "v1.37.2"
	_, apiserverBin := kubernetesBins(t, p, release)
	ctx := context.Background()
	dir := t.TempDir()
	// AlertRules builds the repository's plegvet into dir.
	if _, err := harness.AlertRules(ctx, filepath.Join("..", ".."), release, dir); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(dir, "bundle")
	if out, err := exec.Command(filepath.Join(dir, "plegvet"), "alerts", "-k8s", release, "-o", "bundle", "-dir", bundle).CombinedOutput(); err != nil {
		t.Fatalf("plegvet alerts -o bundle: %v\n%s", err, out)
	}
	// The API server binds the node network's host address.
	removeNetwork, err := harness.CreateNodeNetwork(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer removeNetwork()
	cp, err := harness.StartControlPlane(ctx, apiserverBin, filepath.Join(dir, "control"))
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()

	crd := yamlObject(t, filepath.Join("testdata", "crd", "monitoring.coreos.com_prometheusrules.yaml"))
	apply(t, cp, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
	waitFor(t, time.Minute, "the PrometheusRule CRD to be established", func() (bool, string) {
		_, out, err := cp.Do(ctx, harness.AdminToken, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/prometheusrules.monitoring.coreos.com", nil)
		return err == nil && strings.Contains(string(out), `"type":"Established","status":"True"`), string(out)
	})

	files, _ := filepath.Glob(filepath.Join(bundle, "*.yaml"))
	if len(files) != 2 {
		t.Fatalf("the bundle holds %v; want a PrometheusRule and a ConfigMap", files)
	}
	kinds := map[string]string{
		"PrometheusRule": "/apis/monitoring.coreos.com/v1/namespaces/default/prometheusrules",
		"ConfigMap":      "/api/v1/namespaces/default/configmaps",
	}
	for _, f := range files {
		obj := yamlObject(t, f)
		kind, _ := obj["kind"].(string)
		path, ok := kinds[kind]
		if !ok {
			t.Fatalf("%s: kind %q", f, kind)
		}
		delete(kinds, kind)
		// The PrometheusRule is created until the CRD's REST mapping
		// serves it (a few seconds after Established).
		waitFor(t, time.Minute, "the API server to create "+kind, func() (bool, string) {
			body, _ := json.Marshal(obj)
			code, out, err := cp.Do(ctx, harness.AdminToken, http.MethodPost, path, body)
			return err == nil && code == http.StatusCreated, string(out)
		})
		name := obj["metadata"].(map[string]any)["name"].(string)
		code, out, err := cp.Do(ctx, harness.AdminToken, http.MethodGet, path+"/"+name, nil)
		if err != nil || code != http.StatusOK {
			t.Fatalf("GET %s/%s: %v %d %s", path, name, err, code, out)
		}
		var back map[string]any
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		field := map[string]string{"PrometheusRule": "spec", "ConfigMap": "data"}[kind]
		if !reflect.DeepEqual(jsonRoundTrip(t, obj[field]), back[field]) {
			t.Errorf("%s %s: the API server gave back a %s that differs from the file's (pruned or defaulted)", kind, name, field)
			continue
		}
		t.Logf("%s %s: created and read back, its %s as written", kind, name, field)
	}
}

// yamlObject reads a one-document YAML file as JSON would decode it.
func yamlObject(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return jsonRoundTrip(t, obj).(map[string]any)
}

// jsonRoundTrip is v as JSON decodes it (numbers float64, maps of any).
func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
