package nodeverdict

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadCrictl(t *testing.T) {
	for _, tc := range []struct {
		file string
		want Runtime
	}{
		{"containerd.json", Runtime{ReportedBy: ReportedByCrictl, Name: "containerd", Version: "v2.1.3", APIVersion: "v1", KubeletAPIVersion: "0.1.0", Known: true}},
		{"crio.json", Runtime{ReportedBy: ReportedByCrictl, Name: "cri-o", Version: "1.36.0", APIVersion: "v1", KubeletAPIVersion: "0.1.0", Known: true}},
		// What crictl version (cri-tools v1.34.0) printed on a node running
		// Debian's containerd: it has no -o flag, and prints one
		// "Name:  value" line per field.
		{"containerd-1.6.20-debian.txt", Runtime{ReportedBy: ReportedByCrictl, Name: "containerd", Version: "1.6.20~ds1", APIVersion: "v1", KubeletAPIVersion: "0.1.0", Known: true}},
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

// The forms crictl version's output takes: crictl's own lines (with CRLF,
// with the log line crictl writes on stderr when both streams were
// captured), and the same fields as flat YAML or JSON.
func TestReadCrictlForms(t *testing.T) {
	want := Runtime{ReportedBy: ReportedByCrictl, Name: "containerd", Version: "1.7.27", APIVersion: "v1", KubeletAPIVersion: "0.1.0", Known: true}
	for name, data := range map[string]string{
		"crictl":      "Version:  0.1.0\nRuntimeName:  containerd\nRuntimeVersion:  1.7.27\nRuntimeApiVersion:  v1\n",
		"crlf":        "Version:  0.1.0\r\nRuntimeName:  containerd\r\nRuntimeVersion:  1.7.27\r\nRuntimeApiVersion:  v1\r\n",
		"with stderr": "time=\"2026-12-01T11:22:43Z\" level=warning msg=\"Config \\\"/etc/crictl.yaml\\\" does not exist\"\nVersion:  0.1.0\nRuntimeName:  containerd\nRuntimeVersion:  1.7.27\nRuntimeApiVersion:  v1\n",
		"yaml":        "---\n# crictl version, as YAML\nversion: \"0.1.0\"\nruntimeName: containerd\nruntimeVersion: '1.7.27'\nruntimeApiVersion: v1\nextra: ignored\n",
		"json":        `{"version": "0.1.0", "runtimeName": "containerd", "runtimeVersion": "1.7.27", "runtimeApiVersion": "v1"}`,
		"no newline":  "Version:  0.1.0\nRuntimeName:  containerd\nRuntimeVersion:  1.7.27\nRuntimeApiVersion:  v1",
	} {
		rt, err := ReadCrictl("v.txt", []byte(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if *rt != want {
			t.Errorf("%s: got %+v, want %+v", name, *rt, want)
		}
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
		{"cut short", "Version:  0.1.0\nRuntimeName:  containerd\n", `^v.json: no runtimeApiVersion \(found version, runtimeName\); want the output of crictl version \(lines Version, RuntimeName, RuntimeVersion, RuntimeApiVersion\), or the same as a JSON or YAML object \(keys version, runtimeName, runtimeVersion, runtimeApiVersion\)$`},
		{"crictl info", `{"status": {"conditions": []}, "config": {}}`, `^v.json: no "runtimeName" \(found keys "config", "status"\); want the output of crictl version \(lines`},
		{"crictl ps", "CONTAINER           IMAGE               CREATED\n", `^v.json:1:1: not crictl version output: "CONTAINER           IMAGE               CREATED" is not a line "Key: value"; want the output of crictl version`},
		{"usage error", "Incorrect Usage: flag provided but not defined: -o\n", `^v.json:1:1: not crictl version output: "Incorrect Usage: flag provided but not defined: -o" is not a line "Key: value"`},
		{"no field", "Foo:  bar\n", `^v.json: no line of crictl version output; want`},
		{"twice", "RuntimeName: a\nRuntimeName: b\n", `^v.json:2:1: RuntimeName a second time; want one crictl version output$`},
		{"empty line value", "RuntimeName:  \nRuntimeApiVersion: v1\n", `^v.json: runtimeName is empty; want`},
		{"binary", "RuntimeName: \xff\n", `^v.json: not text \(invalid UTF-8\); want`},
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

// A key said twice in the JSON form is refused, as a line said twice is:
// encoding/json would keep the second silently.
func TestReadCrictlJSONDuplicateKey(t *testing.T) {
	data := []byte(`{"version":"0.1.0","runtimeName":"containerd","runtimeVersion":"v1.6.20","runtimeVersion":"v2.1.4","runtimeApiVersion":"v1"}`)
	rt, err := ReadCrictl("crictl.json", data)
	if err == nil || !strings.Contains(err.Error(), "runtimeVersion a second time") || !strings.HasPrefix(err.Error(), "crictl.json:1:") {
		t.Errorf("runtime %+v, error %v; want crictl.json:1:COL: runtimeVersion a second time", rt, err)
	}
}
