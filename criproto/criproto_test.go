package criproto

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestParseFile(t *testing.T) {
	tests := []struct {
		file string
		want string // the events summary, or the error
	}{
		{"gogo.proto", "runtime.v1.RuntimeService.GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) at testdata/gogo.proto:18:5 comment=\"GetContainerEvents streams what happens to containers,\\nas it happens.\" request=[] response=[container_id=1:string@27 container_event_type=2:ContainerEventType@28 created_at=3:int64@29 containers_statuses=5:repeated string@30 labels=6:map<string, string>@31] events=[CONTAINER_CREATED_EVENT=0 CONTAINER_STARTED_EVENT=1 CONTAINER_STOPPED_EVENT=2 CONTAINER_DELETED_EVENT=3]"},
		{"plain.proto", "runtime.v1.RuntimeService.GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) at testdata/plain.proto:11:5 comment=\"GetContainerEvents gets container events from the CRI runtime.\" request=[] response=[container_id=1:string@19 container_event_type=2:ContainerEventType@20 reason=7:string@22] events=[CONTAINER_CREATED_EVENT=0 CONTAINER_DELETED_EVENT=3]"},
		{"unary.proto", "runtime.v1.RuntimeService.GetContainerEvents(GetEventsRequest) returns (ContainerEventResponse) at testdata/unary.proto:4:5 comment=\"\" request=[] response=[] events=[]"},
		{"missing.proto", "no runtime.v1.RuntimeService.GetContainerEvents; check <nil>; elsewhere []"},
		// The unary decoy in ImageService comes first; RuntimeService's is the one.
		{"otherservice.proto", "runtime.v1.RuntimeService.GetContainerEvents(GetEventsRequest) returns (stream ContainerEventResponse) at testdata/otherservice.proto:11:5 comment=\"\" request=[] response=[] events=[]"},
		{"otheronly.proto", "no runtime.v1.RuntimeService.GetContainerEvents; check <nil>; elsewhere [runtime.v1.ImageService.GetContainerEvents at testdata/otheronly.proto:7:5]"},
		{"otherpackage.proto", "no runtime.v1.RuntimeService.GetContainerEvents; check testdata/otherpackage.proto:3:1: package runtime.v1alpha2, want runtime.v1: the kubelet calls runtime.v1.RuntimeService; elsewhere [runtime.v1alpha2.RuntimeService.GetContainerEvents at testdata/otherpackage.proto:5:5]"},
		{"duplicate.proto", "error: testdata/duplicate.proto:5:5: rpc RuntimeService.GetContainerEvents redeclared (first declared at testdata/duplicate.proto:4:5); protoc refuses the file"},
		{"broken.proto", `error: testdata/broken.proto:4:54: found "stream" but expected [rpc type opening (]`},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			if got := summary(readFile(filepath.Join("testdata", tc.file))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// readFile parses a file of testdata (internal/load/protofile reads a
// file from outside, with its limits).
func readFile(path string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

func summary(f *File, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	ev, ok := f.FindEvents()
	if !ok {
		var elsewhere []string
		for _, r := range f.Elsewhere() {
			elsewhere = append(elsewhere, fmt.Sprintf("%s at %s", r.FullName(), r.Pos))
		}
		return fmt.Sprintf("no %s; check %v; elsewhere [%s]", EventsFullName, f.CheckRuntimeService(), strings.Join(elsewhere, " "))
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
	return fmt.Sprintf("%s(%s%s) returns (%s%s) at %s:%d:%d comment=%q request=%s response=%s events=[%s]",
		r.FullName(), stream(r.ClientStreaming), r.Request, stream(r.ServerStreaming), r.Response,
		r.Pos.File, r.Pos.Line, r.Pos.Column, r.Comment, fields(ev.Request), fields(ev.Response), strings.Join(evs, " "))
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

// TestParseErrors: every error is one line, name:line:column: what, the
// file named once, at the first bad byte or token.
func TestParseErrors(t *testing.T) {
	const head = "syntax = \"proto3\";\npackage runtime.v1;\n"
	tests := []struct{ name, src, want string }{
		// Two bad bytes in a comment: the scanner reported both, without
		// a useful column.
		{"utf8 in a comment", head + "// caf\xe9 na\xefve\n", "x.proto:3:7: invalid UTF-8 (byte 0xe9); want a .proto file in UTF-8"},
		// The scanner names the start of the token before it.
		{"utf8 in a name", head + "service Runtime\xffService {}\n", "x.proto:3:16: invalid UTF-8 (byte 0xff); want a .proto file in UTF-8"},
		{"utf8 column in characters", head + "// \u00e9\xff\n", "x.proto:3:5: invalid UTF-8 (byte 0xff); want a .proto file in UTF-8"},
		{"NUL", head + "message M {}\x00\n", "x.proto:3:13: invalid character NUL; want a text .proto file"},
		{"string not terminated", head + "option x = \"abc;\n", "x.proto:3:12: literal not terminated"},
		{"comment not terminated", head + "/* never closed\n", "x.proto:3:1: comment not terminated"},
		{"bad number", head + "message M { int32 a = 0x; }\n", "x.proto:3:23: hexadecimal literal has no digits"},
		{"parser", head + "service RuntimeService { rpc E(A) returns B {} }\n", `x.proto:3:43: found "B" but expected [rpc type opening (]`},
		// The parser's own error lacks the position here (it had skipped
		// the space after the token).
		{"parser, no position", "service S {rpc A() }", `x.proto:1:18: found ")" but expected [rpc stream | request type]`},
		{"parser, no position, token seen before", "service S {rpc A(B) returns (C);\n rpc D() }", `x.proto:2:8: found ")" but expected [rpc stream | request type]`},
		{"a long token, cut", head + strings.Repeat("x", 5000) + "\n", `x.proto:3:1: found "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"... but expected [.proto element {comment|option|import|syntax|enum|service|package|message}]`},
		{"bracket column in characters", head + "message \u00c9 }\n", "x.proto:3:11: unexpected '}'; brackets do not match"},
		{"rpc twice", head + "service RuntimeService {\n  rpc E(A) returns (stream B);\n  rpc E(A) returns (B);\n}\n", "x.proto:5:3: rpc RuntimeService.E redeclared (first declared at x.proto:4:3); protoc refuses the file"},
		{"service twice", head + "service RuntimeService {}\nservice RuntimeService {}\n", "x.proto:4:1: service RuntimeService redeclared (first declared at x.proto:3:1); protoc refuses the file"},
		{"package twice", head + "package runtime.v2;\n", "x.proto:3:1: package redeclared (first declared at x.proto:2:1); protoc refuses the file"},
		{"too large", head + strings.Repeat(" ", MaxFileSize), "x.proto: is 1048615 bytes, over the 1 MiB limit for a .proto file; want the CRI api.proto"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.proto", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestCheckRuntimeService: a file that is not the API the kubelet calls
// says what it is instead.
func TestCheckRuntimeService(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"the API", "package runtime.v1;\nservice RuntimeService {}\n", "<nil>"},
		{"package last", "service RuntimeService { rpc GetContainerEvents(A) returns (stream B); }\npackage runtime.v1;\n", "<nil>"},
		{"alpha package", "syntax = \"proto3\";\npackage runtime.v1alpha2;\nservice RuntimeService {}\n", "x.proto:2:1: package runtime.v1alpha2, want runtime.v1: the kubelet calls runtime.v1.RuntimeService"},
		{"no package", "service RuntimeService {}\n", "x.proto: no package declaration, want package runtime.v1: the kubelet calls runtime.v1.RuntimeService"},
		{"other services", "package runtime.v1;\nservice ImageService {}\nservice Health {}\n", "x.proto: package runtime.v1 declares no service RuntimeService (it declares ImageService, Health): the kubelet calls runtime.v1.RuntimeService"},
		{"no service", "package runtime.v1;\nmessage M {}\n", "x.proto: package runtime.v1 declares no service RuntimeService (it declares no service): the kubelet calls runtime.v1.RuntimeService"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Parse("x.proto", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(f.CheckRuntimeService()); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// hangAfter is far beyond any real parse (milliseconds), so a fuzz input
// that takes longer hangs.
const hangAfter = 10 * time.Second

// errorPos is the shape of a positioned error of Parse.
var errorPos = regexp.MustCompile(`^fuzz\.proto:[0-9]+:[0-9]+: `)

// FuzzParse: the reader of outside input never panics, and names the file
// in every error, on one line, with a position unless the file is empty
// or too large.
func FuzzParse(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.proto"))
	for _, n := range names {
		b, _ := os.ReadFile(n)
		f.Add(b)
	}
	f.Add([]byte("package runtime.v1;\n// caf\xe9\nservice RuntimeService {}\n"))
	f.Add([]byte("package runtime.v1;\x00service RuntimeService {}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		var file *File
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			file, err = Parse("fuzz.proto", src)
		}()
		select {
		case <-done:
		case <-time.After(hangAfter):
			t.Fatalf("Parse did not return in %v", hangAfter)
		}
		if err != nil {
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error of more than one line: %q", msg)
			}
			if !errorPos.MatchString(msg) && !strings.HasPrefix(msg, "fuzz.proto: empty file") && !strings.HasPrefix(msg, "fuzz.proto: is ") {
				t.Errorf("error without the file's name and a position: %v", err)
			}
			return
		}
		file.FindEvents()
		file.Elsewhere()
		if err := file.CheckRuntimeService(); err != nil && !strings.HasPrefix(err.Error(), "fuzz.proto") {
			t.Errorf("error does not name the file: %v", err)
		}
	})
}
