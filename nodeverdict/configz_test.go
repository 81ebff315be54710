package nodeverdict

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestReadConfigz(t *testing.T) {
	for _, tc := range []struct {
		file          string
		gate          string
		value, set    bool
		gates         int
		wantErrRegexp string
	}{
		{file: "unset.json", gate: "EventedPLEG", gates: 1},
		{file: "on.json", gate: "EventedPLEG", value: true, set: true, gates: 2},
		{file: "off.json", gate: "EventedPLEG", value: false, set: true, gates: 1},
		{file: "nogates.json", gate: "EventedPLEG", gates: 0},
	} {
		t.Run(tc.file, func(t *testing.T) {
			name := filepath.Join("testdata", "configz", tc.file)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := ReadConfigz(name, data)
			if err != nil {
				t.Fatal(err)
			}
			value, set := cfg.Gate(tc.gate)
			if value != tc.value || set != tc.set {
				t.Errorf("Gate(%q) = %t, %t; want %t, %t", tc.gate, value, set, tc.value, tc.set)
			}
			if len(cfg.FeatureGates) != tc.gates {
				t.Errorf("%d feature gates, want %d: %v", len(cfg.FeatureGates), tc.gates, cfg.FeatureGates)
			}
		})
	}
}

func TestReadConfigzErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "  \n", `^c.json: empty file; want \{"kubeletconfig"`},
		{"yaml", "kubeletconfig:\n  featureGates: {}\n", `^c.json:1:1: not JSON: invalid character 'k' looking for beginning of value; want`},
		{"syntax on line 3", "{\n \"kubeletconfig\": {\n  \"featureGates\": {,}\n }\n}", `^c.json:3:20: not JSON: invalid character ','`},
		{"truncated", `{"kubeletconfig": {"featureGates": {"EventedPLEG": tr`, `^c.json:1:54: not JSON: the file ends in the middle of a value \(cut short\?\); want`},
		{"cut after a value", `{"kubeletconfig": {}`, `^c.json:1:21: not JSON: the file ends in the middle of a value`},
		{"array", `[1, 2]`, `^c.json: JSON array, not an object; want \{"kubeletconfig": \{...\}\}, the output of kubectl get --raw /api/v1/nodes/NODE/proxy/configz$`},
		{"a KubeletConfiguration", `{"kind": "KubeletConfiguration", "apiVersion": "kubelet.config.k8s.io/v1beta1", "featureGates": {}}`,
			`^c.json: no "kubeletconfig" key \(found keys "apiVersion", "featureGates", "kind"\); want`},
		{"kubeletconfig null", `{"kubeletconfig": null}`, `^c.json: kubeletconfig is null; want an object`},
		{"featureGates a list", `{"kubeletconfig": {"featureGates": ["EventedPLEG=true"]}}`, `^c.json: kubeletconfig.featureGates is array; want an object of gate names to true or false$`},
		{"a string gate", `{"kubeletconfig": {"featureGates": {"EventedPLEG": "true"}}}`, `^c.json: kubeletconfig.featureGates.EventedPLEG is string "true"; want true or false$`},
		{"a number gate", `{"kubeletconfig": {"featureGates": {"A": true, "EventedPLEG": 1}}}`, `^c.json: kubeletconfig.featureGates.EventedPLEG is number 1; want true or false$`},
		{"the first bad gate, sorted", `{"kubeletconfig": {"featureGates": {"Z": null, "B": {}}}}`, `^c.json: kubeletconfig.featureGates.B is object; want true or false$`},
		{"an odd gate name", `{"kubeletconfig": {"featureGates": {"Evented PLEG": "on"}}}`, `^c.json: kubeletconfig.featureGates."Evented PLEG" is string "on"; want true or false$`},
		{"two values", `{"kubeletconfig": {}} {"kubeletconfig": {}}`, `^c.json:1:23: not JSON: invalid character '\{' after top-level value`},
		// A known key in another case would read as absent: unset, exit 0.
		{"featuregates", "{\"kubeletconfig\": {\n  \"featuregates\": {\"EventedPLEG\": true}}}",
			`^c.json:2:3: kubeletconfig.featuregates differs from kubeletconfig.featureGates only in case; want "featureGates" \(JSON keys are case-sensitive: this one would be read as featureGates absent\)$`},
		{"KubeletConfig", `{"KubeletConfig": {"featureGates": {}}}`, `^c.json:1:2: KubeletConfig differs from kubeletconfig only in case; want "kubeletconfig"`},
		{"eventedPLEG", `{"kubeletconfig": {"featureGates": {"A": true, "eventedPLEG": true}}}`,
			`^c.json:1:48: kubeletconfig.featureGates.eventedPLEG differs from kubeletconfig.featureGates.EventedPLEG only in case; want "EventedPLEG"`},
		{"both cases", `{"kubeletconfig": {"featureGates": {}, "FeatureGates": {"EventedPLEG": true}}}`, `^c.json:1:40: kubeletconfig.FeatureGates differs from kubeletconfig.featureGates only in case`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ReadConfigz("c.json", []byte(tc.data))
			if err == nil {
				t.Fatalf("no error; read %+v", cfg)
			}
			checkErrorLine(t, err, tc.want)
		})
	}
}

// checkErrorLine checks an error is one line matching want.
func checkErrorLine(t *testing.T, err error, want string) {
	t.Helper()
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error has more than one line: %q", msg)
	}
	if !regexp.MustCompile(want).MatchString(msg) {
		t.Errorf("error %q\ndoes not match %q", msg, want)
	}
}
