package runtimeread

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/criproto"
)

// TestEventsInAPIDir reads look-alike k8s.io/cri-api trees: one whose
// api.proto declares the stream, one whose RuntimeService lacks it, one
// with no v1 API at all.
func TestEventsInAPIDir(t *testing.T) {
	const with = `syntax = "proto3";
package runtime.v1;
service RuntimeService {
    rpc Version(VersionRequest) returns (VersionResponse) {}
    rpc GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) {}
}
message VersionRequest {}
message VersionResponse {}
message GetEventsRequest {}
message ContainerEventResponse {}
`
	const without = `syntax = "proto3";
package runtime.v1;
service RuntimeService {
    rpc Version(VersionRequest) returns (VersionResponse) {}
}
message VersionRequest {}
message VersionResponse {}
`
	for _, tc := range []struct {
		name, proto string
		declared    bool
		where       string
	}{
		{"with", with, true, criproto.RelativeToRoot + ":5"},
		{"without", without, false, "declares runtime.v1.RuntimeService without GetContainerEvents"},
		{"nov1", "", false, "it has no CRI v1 API"},
	} {
		dir := t.TempDir()
		if tc.proto != "" {
			p := filepath.Join(dir, filepath.FromSlash(criproto.RelativeToRoot))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tc.proto), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := eventsInAPIDir(dir, "v0.0.1")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.Declared != tc.declared || !strings.Contains(got.Where, tc.where) {
			t.Errorf("%s: %+v, want declared %t, where with %q", tc.name, got, tc.declared, tc.where)
		}
	}
}
