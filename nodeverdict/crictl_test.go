package nodeverdict

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadCrictl(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Runtime
	}{
		{"containerd.json", Runtime{ReportedBy: ReportedByCrictl, Name: "containerd", Version: "v2.1.3", APIVersion: "v1", KubeletAPIVersion: "0.1.0", Known: true}},
		{"crio.json", Runtime{ReportedBy: ReportedByCrictl, Name: "cri-o", Version: "1.36.0", APIVersion: "v1", KubeletAPIVersion: "0.1.0", Known: true}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			name := filepath.Join("testdata", "crictl", tc.file)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := ReadCrictl(name, data)
			if err != nil {
				t.Fatal(err)
			}
			if *rt != tc.want {
				t.Errorf("got %+v, want %+v", *rt, tc.want)
			}
		})
	}
}

func TestReadCrictlRuntimes(t *testing.T) {
	for _, tc := range []struct {
		data  string
		known bool
	}{
		{`{"runtimeName": "docker", "runtimeVersion": "28.1.1", "runtimeApiVersion": "v1"}`, true},
		// Recognised by name only: a fork's own name is unknown, and that
		// is a note, not an error.
		{`{"runtimeName": "Containerd", "runtimeApiVersion": "v1"}`, false},
		{`{"runtimeName": "isulad", "runtimeVersion": "2.1.5", "runtimeApiVersion": "v1"}`, false},
	} {
		rt, err := ReadCrictl("v.json", []byte(tc.data))
		if err != nil {
			t.Errorf("%s: %v", tc.data, err)
			continue
		}
		if rt.Known != tc.known {
			t.Errorf("%s: Known = %t, want %t", tc.data, rt.Known, tc.known)
		}
	}
}

func TestReadCrictlErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"table output", "Version:  0.1.0\nRuntimeName:  containerd\n", `^v.json:1:1: not JSON: invalid character 'V' looking for beginning of value; want the output of crictl version -o json \(keys version, runtimeName, runtimeVersion, runtimeApiVersion\)$`},
		{"crictl info", `{"status": {"conditions": []}, "config": {}}`, `^v.json: no "runtimeName" \(found keys "config", "status"\); want the output of crictl version -o json`},
		{"empty name", `{"runtimeName": " ", "runtimeApiVersion": "v1"}`, `^v.json: runtimeName is empty; want`},
		{"no api version", `{"runtimeName": "containerd"}`, `^v.json: no "runtimeApiVersion" \(found keys "runtimeName"\)`},
		{"a number", `{"runtimeName": "cri-o", "runtimeApiVersion": "v1", "runtimeVersion": 1.36}`, `^v.json: runtimeVersion is number 1.36; want a string`},
		{"a list", `[{"runtimeName": "cri-o"}]`, `^v.json: JSON array, not an object; want`},
		{"empty", ``, `^v.json: empty file; want`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := ReadCrictl("v.json", []byte(tc.data))
			if err == nil {
				t.Fatalf("no error; read %+v", rt)
			}
			checkErrorLine(t, err, tc.want)
		})
	}
}
