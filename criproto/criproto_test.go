package criproto

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	tests := []struct {
		file string
		want string // the events summary, or the error
	}{
		{"gogo.proto", "RuntimeService.GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) at testdata/gogo.proto:18:5 comment=\"GetContainerEvents streams what happens to containers,\\nas it happens.\" request=[] response=[container_id=1:string@27 container_event_type=2:ContainerEventType@28 created_at=3:int64@29 containers_statuses=5:repeated string@30 labels=6:map<string, string>@31] events=[CONTAINER_CREATED_EVENT=0 CONTAINER_STARTED_EVENT=1 CONTAINER_STOPPED_EVENT=2 CONTAINER_DELETED_EVENT=3]"},
		{"plain.proto", "RuntimeService.GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) at testdata/plain.proto:11:5 comment=\"GetContainerEvents gets container events from the CRI runtime.\" request=[] response=[container_id=1:string@19 container_event_type=2:ContainerEventType@20 reason=7:string@22] events=[CONTAINER_CREATED_EVENT=0 CONTAINER_DELETED_EVENT=3]"},
		{"unary.proto", "RuntimeService.GetContainerEvents(GetEventsRequest) returns (ContainerEventResponse) at testdata/unary.proto:4:5 comment=\"\" request=[] response=[] events=[]"},
		{"missing.proto", "no GetContainerEvents"},
		{"broken.proto", `error: testdata/broken.proto:4:54: found "stream" but expected [rpc type opening (]`},
		{"absent.proto", "error: testdata/absent.proto: no such file; want the CRI api.proto (k8s.io/cri-api/pkg/apis/runtime/v1/api.proto)"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			if got := summary(ReadFile(filepath.Join("testdata", tc.file))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func summary(f *File, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	ev, ok := f.FindEvents()
	if !ok {
		return "no GetContainerEvents"
	}
	fields := func(m *Message) string {
		if m == nil {
			return "missing"
		}
		var s []string
		for _, fl := range m.Fields {
			typ := fl.Type
			if fl.Repeated {
				typ = "repeated " + typ
			}
			s = append(s, fmt.Sprintf("%s=%d:%s@%d", fl.Name, fl.Number, typ, fl.Pos.Line))
		}
		return "[" + strings.Join(s, " ") + "]"
	}
	var evs []string
	for _, e := range ev.EventTypes {
		evs = append(evs, fmt.Sprintf("%s=%d", e.Name, e.Number))
	}
	r := ev.RPC
	stream := func(b bool) string {
		if b {
			return "stream "
		}
		return ""
	}
	return fmt.Sprintf("%s.%s(%s%s) returns (%s%s) at %s:%d:%d comment=%q request=%s response=%s events=[%s]",
		r.Service, r.Name, stream(r.ClientStreaming), r.Request, stream(r.ServerStreaming), r.Response,
		r.Pos.Filename, r.Pos.Line, r.Pos.Column, r.Comment, fields(ev.Request), fields(ev.Response), strings.Join(evs, " "))
}

func TestParseEdgeCases(t *testing.T) {
	for name, src := range map[string]string{
		"empty":      "",
		"whitespace": " \n\t\n",
		"binary":     "\x00\x01\x02",
		"truncated":  "syntax = \"proto3\";\nservice RuntimeService {\n    rpc GetContainerEvents(",
	} {
		_, err := Parse(name+".proto", []byte(src))
		if err == nil || !strings.HasPrefix(err.Error(), name+".proto") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: err = %v, want one line naming the file", name, err)
		}
	}
}

// FuzzParse: the reader of outside input never panics, and names the file
// in every error.
func FuzzParse(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.proto"))
	for _, n := range names {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.proto", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.proto") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		file.FindEvents()
	})
}
