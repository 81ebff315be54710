package nodeverdict

import "testing"

// encoding/json keeps the last of two values for one key; a configz that
// says a gate twice is not one kubelet's, and is refused, as the metrics
// reader refuses a gate that is both 0 and 1.
func TestReadConfigzDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"a gate twice", `{"kubeletconfig": {"featureGates": {"EventedPLEG": true, "EventedPLEG": false}}}`,
			`^c.json:1:58: kubeletconfig.featureGates.EventedPLEG a second time \(first at 1:37\); want each key once, as in one kubelet's configz$`},
		{"a gate twice, the same value", `{"kubeletconfig": {"featureGates": {"EventedPLEG": false, "EventedPLEG": false}}}`,
			`^c.json:1:59: kubeletconfig.featureGates.EventedPLEG a second time \(first at 1:37\)`},
		{"a gate twice, once escaped", `{"kubeletconfig": {"featureGates": {"EventedPLEG": true, "Evented\u0050LEG": false}}}`,
			`^c.json:1:58: kubeletconfig.featureGates.EventedPLEG a second time \(first at 1:37\)`},
		{"two kubeletconfig objects", "{\n \"kubeletconfig\": {\"featureGates\": {\"EventedPLEG\": true}},\n \"kubeletconfig\": {}\n}",
			`^c.json:3:2: kubeletconfig a second time \(first at 2:2\); want each key once`},
		{"kubeletconfig null, then an object", `{"kubeletconfig": null, "kubeletconfig": {"featureGates": {}}}`,
			`^c.json:1:25: kubeletconfig a second time \(first at 1:2\)`},
		{"featureGates twice", "{\"kubeletconfig\": {\n  \"featureGates\": {\"EventedPLEG\": true},\n  \"maxPods\": 110,\n  \"featureGates\": {\"EventedPLEG\": false}\n}}",
			`^c.json:4:3: kubeletconfig.featureGates a second time \(first at 2:3\)`},
		{"featureGates null, then an object", `{"kubeletconfig": {"featureGates": null, "featureGates": {"EventedPLEG": true}}}`,
			`^c.json:1:42: kubeletconfig.featureGates a second time \(first at 1:20\)`},
		{"a top-level key twice", `{"a": 1, "kubeletconfig": {}, "a": 2}`,
			`^c.json:1:31: a a second time \(first at 1:2\)`},
		{"an odd gate name twice", "{\"kubeletconfig\": {\"featureGates\": {\"Evented\\nPLEG\": true,\t\"Evented\\nPLEG\": false}}}",
			`^c.json:1:60: kubeletconfig.featureGates."Evented\\nPLEG" a second time \(first at 1:37\)`},
		{"the first in the file", `{"kubeletconfig": {"featureGates": {"B": true, "B": true}, "featureGates": {}}, "kubeletconfig": {}}`,
			`^c.json:1:48: kubeletconfig.featureGates.B a second time`},
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

// A key said twice where the reader does not look (an object inside
// kubeletconfig other than featureGates) is left alone, and so are one
// key's appearances in different objects.
func TestReadConfigzDuplicatesElsewhere(t *testing.T) {
	for _, data := range []string{
		`{"kubeletconfig": {"authentication": {"x509": {}, "x509": {}}, "featureGates": {"EventedPLEG": true}}}`,
		`{"kubeletconfig": {"featureGates": {"EventedPLEG": true}, "evictionHard": {"featureGates": 1}}, "featureGates": {}}`,
		`{"kubeletconfig": {"featureGates": {"EventedPLEG": true}, "list": [{"a": 1, "a": 2}]}}`,
	} {
		cfg, err := ReadConfigz("c.json", []byte(data))
		if err != nil {
			t.Errorf("%s: %v", data, err)
			continue
		}
		if v, set := cfg.Gate("EventedPLEG"); !v || !set {
			t.Errorf("%s: Gate = %t, %t; want true, true", data, v, set)
		}
	}
}
