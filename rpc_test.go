package plegvet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
)

const testTree = "testdata/src/k8s.io/kubernetes"

// writeProto writes a proto into a fresh directory and returns its path.
func writeProto(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "api.proto")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestEventStreamRPCByFullName: the rpc joined with the evented PLEG's
// call is runtime.v1.RuntimeService's; one of the same name in another
// service is mentioned, never used.
func TestEventStreamRPCByFullName(t *testing.T) {
	const head = "syntax = \"proto3\";\npackage runtime.v1;\nmessage GetEventsRequest {}\nmessage ContainerEventResponse {}\n"
	tests := []struct {
		name, proto string
		rpc         string   // "" for none
		diagnostics []string // category: message [related...]
	}{{
		name: "a unary decoy in another service, first",
		proto: head + "service ImageService {\n  rpc GetContainerEvents(GetEventsRequest) returns (ContainerEventResponse);\n}\n" +
			"service RuntimeService {\n  rpc GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse);\n}\n",
		rpc: "RuntimeService.GetContainerEvents stream at {proto}:9:3",
	}, {
		name: "only another service has it",
		proto: head + "service RuntimeService {}\n" +
			"service ImageService {\n  rpc GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse);\n}\n",
		diagnostics: []string{"rpc-missing: the evented PLEG consumes GetContainerEvents, but {proto} declares no such rpc in service RuntimeService, the one the kubelet calls" +
			" [the CRI api.proto read at {proto}:1:1] [rpc runtime.v1.ImageService.GetContainerEvents: another service's, not called at {proto}:7:3]"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeProto(t, tc.proto)
			rep, err := EventStream(context.Background(), Options{Dir: testTree, Proto: p})
			if err != nil {
				t.Fatal(err)
			}
			subst := func(s string) string { return strings.ReplaceAll(s, "{proto}", filepath.ToSlash(p)) }
			got := ""
			if r := rep.RPC; r != nil {
				stream := "unary"
				if r.ServerStreaming {
					stream = "stream"
				}
				got = fmt.Sprintf("%s.%s %s at %s:%d:%d", r.Service, r.Name, stream, r.Pos.File, r.Pos.Line, r.Pos.Column)
			}
			if want := subst(tc.rpc); got != want {
				t.Errorf("rpc\ngot  %s\nwant %s", got, want)
			}
			var ds []string
			for _, d := range rep.Diagnostics {
				s := d.Category + ": " + d.Message
				for _, r := range d.Related {
					s += fmt.Sprintf(" [%s at %s:%d:%d]", r.Message, r.Pos.File, r.Pos.Line, r.Pos.Column)
				}
				ds = append(ds, s)
			}
			if got, want := strings.Join(ds, "\n"), subst(strings.Join(tc.diagnostics, "\n")); got != want {
				t.Errorf("diagnostics\ngot  %s\nwant %s", got, want)
			}
		})
	}
}

// TestEventStreamRPCRefuses: what is not the API the kubelet calls, or
// what protoc would refuse, is one error line saying what was expected.
func TestEventStreamRPCRefuses(t *testing.T) {
	tests := []struct{ name, proto, want string }{{
		name:  "an rpc declared twice",
		proto: "package runtime.v1;\nservice RuntimeService {\n  rpc GetContainerEvents(A) returns (A);\n  rpc GetContainerEvents(A) returns (stream A);\n}\nmessage A {}\n",
		want:  "{proto}:4:3: rpc RuntimeService.GetContainerEvents redeclared (first declared at {proto}:3:3); protoc refuses the file",
	}, {
		name:  "another package",
		proto: "syntax = \"proto3\";\npackage runtime.v1alpha2;\nservice RuntimeService {\n  rpc GetContainerEvents(A) returns (stream A);\n}\nmessage A {}\n",
		want:  "{proto}:2:1: package runtime.v1alpha2, want runtime.v1: the kubelet calls runtime.v1.RuntimeService",
	}, {
		name:  "no RuntimeService",
		proto: "package runtime.v1;\nservice ImageService {\n  rpc GetContainerEvents(A) returns (stream A);\n}\nmessage A {}\n",
		want:  "{proto}: package runtime.v1 declares no service RuntimeService (it declares ImageService): the kubelet calls runtime.v1.RuntimeService",
	}, {
		name:  "invalid UTF-8",
		proto: "package runtime.v1;\n// na\xefve \xff\nservice RuntimeService {}\n",
		want:  "{proto}:2:6: invalid UTF-8 (byte 0xef); want a .proto file in UTF-8",
	}, {
		name:  "a parser error, the file named once",
		proto: "package runtime.v1;\noption x = \"open;\n",
		want:  "{proto}:2:12: literal not terminated",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeProto(t, tc.proto)
			_, err := EventStream(context.Background(), Options{Proto: p})
			if want := strings.ReplaceAll(tc.want, "{proto}", filepath.ToSlash(p)); err == nil || err.Error() != want {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}

// TestReportRPCMissingReason: the report's missing rpc says what the
// proto should have been.
func TestReportRPCMissingReason(t *testing.T) {
	p := writeProto(t, "syntax = \"proto3\";\npackage runtime.v1alpha2;\nservice RuntimeService {}\n")
	rep, err := Inspect(context.Background(), Options{Dir: testTree, Proto: p})
	if err != nil {
		t.Fatal(err)
	}
	want := answer.Missing{Part: "rpc", Why: filepath.ToSlash(p) + ":2:1: package runtime.v1alpha2, want runtime.v1: the kubelet calls runtime.v1.RuntimeService"}
	var got []answer.Missing
	for _, m := range rep.Missing {
		if m.Part == "rpc" {
			got = append(got, m)
		}
	}
	if len(got) != 1 || got[0] != want {
		t.Errorf("missing rpc %+v, want %+v", got, want)
	}
}
