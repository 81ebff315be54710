package srcpos_test

import (
	"encoding/json"
	"testing"

	"github.com/plegvet/plegvet/srcpos"
)

// A name keeps its bytes through JSON: as is when it is UTF-8, Go-quoted
// when not (or when it begins with a quote, which marks the quoted form).
func TestJSONNameRoundTrip(t *testing.T) {
	for name, want := range map[string]string{
		"pkg/kubelet/kubelet.go":                 "pkg/kubelet/kubelet.go",
		"pkg/features/kube features 100%.go":     "pkg/features/kube features 100%.go",
		"pkg/features/kube features \xff\xfe.go": `"pkg/features/kube features \xff\xfe.go"`,
		`"quoted".go`:                            `"\"quoted\".go"`,
	} {
		got := srcpos.JSONName(name)
		if got != want {
			t.Errorf("JSONName(%q) = %q, want %q", name, got, want)
		}
		data, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var read string
		if err := json.Unmarshal(data, &read); err != nil {
			t.Fatal(err)
		}
		if back, err := srcpos.FromJSONName(read); err != nil || back != name {
			t.Errorf("FromJSONName(%q) = %q, %v; want %q", read, back, err, name)
		}
	}
}
