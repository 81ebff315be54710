package criproto

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/scanner"

	"github.com/emicklei/proto"

	"github.com/plegvet/plegvet/srcpos"
)

// The names plegvet looks for.
const (
	CRIPackage     = "runtime.v1"     // the package the kubelet's CRI client calls
	RuntimeService = "RuntimeService" // the service of the event stream
	EventsRPC      = "GetContainerEvents"
	EventTypeEnum  = "ContainerEventType"
	RelativeToRoot = "pkg/apis/runtime/v1/api.proto" // within k8s.io/cri-api
)

// EventsFullName is the rpc the kubelet calls, by its full name.
const EventsFullName = CRIPackage + "." + RuntimeService + "." + EventsRPC

// RPC is one rpc of a service.
type RPC struct {
	Package         string     `json:"-"` // the file's package
	Service         string     `json:"service"`
	Name            string     `json:"name"`
	Request         string     `json:"request"`
	Response        string     `json:"response"`
	ClientStreaming bool       `json:"clientStreaming"`
	ServerStreaming bool       `json:"serverStreaming"`
	Pos             srcpos.Pos `json:"pos"`
	Comment         string     `json:"comment"` // the leading comment, without //
}

// Field is one field of a message.
type Field struct {
	Name     string     `json:"name"`
	Number   int        `json:"number"`
	Type     string     `json:"type"` // as written: "string", "repeated ContainerStatus" is Type "ContainerStatus" with Repeated
	Repeated bool       `json:"repeated"`
	Pos      srcpos.Pos `json:"pos"`
}

// Message is a message and its fields.
type Message struct {
	Name   string
	Fields []Field
	Pos    srcpos.Pos
}

// EnumValue is one value of an enum.
type EnumValue struct {
	Name   string     `json:"name"`
	Number int        `json:"number"`
	Pos    srcpos.Pos `json:"-"`
}

// Enum is an enum and its values.
type Enum struct {
	Name   string
	Values []EnumValue
	Pos    srcpos.Pos
}

// Service is a service's name and position.
type Service struct {
	Name string
	Pos  srcpos.Pos
}

// File is what Parse read.
type File struct {
	Path       string
	Package    string
	PackagePos srcpos.Pos
	Imports    []string
	Services   []Service // in the order declared
	RPCs       []RPC     // of every service, in the order declared
	Messages   map[string]*Message
	Enums      map[string]*Enum
}

// Parse reads a proto file's source. name is used in positions and errors.
// Every error is one line, "name:line:column: what", but for a file that
// is empty or too large.
// MaxFileSize caps what is read of a proto file, so that a huge or endless
// file costs at most this much. The largest real api.proto, that of
// k8s.io/cri-api v0.37.2, is 102,158 bytes (v0.25.16: 64,225); 1 MiB
// leaves ten times that.
const MaxFileSize = 1 << 20

func Parse(name string, src []byte) (f *File, err error) {
	if len(src) > MaxFileSize {
		return nil, fmt.Errorf("%s: is %d bytes, over the 1 MiB limit for a .proto file; want the CRI api.proto", name, len(src))
	}
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, fmt.Errorf("%s: empty file; want a proto file declaring service RuntimeService", name)
	}
	defer func() {
		if r := recover(); r != nil { // the parser is not ours; never let it take the program down
			f, err = nil, fmt.Errorf("%s: the proto parser failed: %v", name, r)
		}
	}()
	if err := checkText(name, src); err != nil {
		return nil, err
	}
	if err := checkBalance(name, src); err != nil {
		return nil, err
	}
	p := proto.NewParser(bytes.NewReader(src))
	p.Filename(name)
	def, err := p.Parse()
	if err != nil {
		return nil, parseError(name, src, err)
	}
	f = &File{Path: name, Messages: map[string]*Message{}, Enums: map[string]*Enum{}}
	var redecl error // the first redeclaration, which protoc refuses
	redeclared := func(at srcpos.Pos, what string, first srcpos.Pos) {
		if redecl == nil {
			redecl = fmt.Errorf("%s: %s redeclared (first declared at %s); protoc refuses the file", at, what, first)
		}
	}
	// Maps, not scans of f.Services and f.RPCs: a file of many rpcs must
	// not cost their square.
	services := map[string]srcpos.Pos{}
	rpcs := map[[2]string]srcpos.Pos{}
	proto.Walk(def,
		proto.WithPackage(func(pk *proto.Package) {
			at := position(pk.Position)
			if f.Package != "" {
				redeclared(at, "package", f.PackagePos)
				return
			}
			f.Package, f.PackagePos = pk.Name, at
		}),
		proto.WithImport(func(i *proto.Import) { f.Imports = append(f.Imports, i.Filename) }),
		proto.WithService(func(s *proto.Service) {
			at := position(s.Position)
			if first, ok := services[s.Name]; ok {
				redeclared(at, "service "+s.Name, first)
				return
			}
			services[s.Name] = at
			f.Services = append(f.Services, Service{Name: s.Name, Pos: at})
		}),
		proto.WithRPC(func(r *proto.RPC) {
			rpc := RPC{
				Name: r.Name, Request: r.RequestType, Response: r.ReturnsType,
				ClientStreaming: r.StreamsRequest, ServerStreaming: r.StreamsReturns,
				Pos: position(r.Position), Comment: comment(r.Comment),
			}
			if s, ok := r.Parent.(*proto.Service); ok {
				rpc.Service = s.Name
			}
			key := [2]string{rpc.Service, rpc.Name}
			if first, ok := rpcs[key]; ok {
				redeclared(rpc.Pos, "rpc "+rpc.Service+"."+rpc.Name, first)
				return
			}
			rpcs[key] = rpc.Pos
			f.RPCs = append(f.RPCs, rpc)
		}),
		proto.WithMessage(func(m *proto.Message) {
			msg := &Message{Name: m.Name, Pos: position(m.Position)}
			for _, e := range m.Elements {
				switch fl := e.(type) {
				case *proto.NormalField:
					msg.Fields = append(msg.Fields, Field{Name: fl.Name, Number: fl.Sequence, Type: fl.Type, Repeated: fl.Repeated, Pos: position(fl.Position)})
				case *proto.MapField:
					msg.Fields = append(msg.Fields, Field{Name: fl.Name, Number: fl.Sequence, Type: "map<" + fl.KeyType + ", " + fl.Type + ">", Pos: position(fl.Position)})
				case *proto.Oneof:
					for _, oe := range fl.Elements {
						if of, ok := oe.(*proto.OneOfField); ok {
							msg.Fields = append(msg.Fields, Field{Name: of.Name, Number: of.Sequence, Type: of.Type, Pos: position(of.Position)})
						}
					}
				}
			}
			if _, dup := f.Messages[m.Name]; !dup { // top-level names first; nested ones do not shadow them
				f.Messages[m.Name] = msg
			}
		}),
		proto.WithEnum(func(e *proto.Enum) {
			en := &Enum{Name: e.Name, Pos: position(e.Position)}
			for _, el := range e.Elements {
				if v, ok := el.(*proto.EnumField); ok {
					en.Values = append(en.Values, EnumValue{Name: v.Name, Number: v.Integer, Pos: position(v.Position)})
				}
			}
			if _, dup := f.Enums[e.Name]; !dup {
				f.Enums[e.Name] = en
			}
		}),
	)
	if redecl != nil {
		return nil, redecl
	}
	for i := range f.RPCs { // the package may be declared after the services
		f.RPCs[i].Package = f.Package
	}
	return f, nil
}

func position(p scanner.Position) srcpos.Pos {
	return srcpos.Pos{File: p.Filename, Line: p.Line, Column: p.Column}
}

func comment(c *proto.Comment) string {
	if c == nil {
		return ""
	}
	lines := make([]string, len(c.Lines))
	for i, l := range c.Lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// parseError makes the parser's error one line, "name:line:column: what".
// The parser reports scanner errors as "go scanner error at POS = what",
// one a line (the later ones follow from the first), and its own as
// "POS: what"; POS lacks line and column when the scanner had just
// skipped spaces, and is then found again (where).
func parseError(name string, src []byte, err error) error {
	msg, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	msg = strings.TrimPrefix(msg, "go scanner error at ")
	rest, ok := strings.CutPrefix(msg, name)
	if !ok { // not a form the parser is known to use
		return fmt.Errorf("%s: %s", name, msg)
	}
	if m := posPrefix.FindStringSubmatch(rest); m != nil {
		return fmt.Errorf("%s:%s:%s: %s", name, m[1], m[2], shorten(m[3]))
	}
	what := strings.TrimLeft(rest, ":= ")
	line, col := where(src, what)
	return fmt.Errorf("%s:%d:%d: %s", name, line, col, shorten(what))
}

// shorten cuts the token a parser error quotes when it is long: it may be
// much of the file.
func shorten(what string) string {
	const keep = 40
	m := foundPrefix.FindStringSubmatchIndex(what)
	if m == nil {
		return what
	}
	tok, err := strconv.Unquote(what[m[2]:m[3]])
	r := []rune(tok)
	if err != nil || len(r) <= keep {
		return what
	}
	return what[:m[2]] + strconv.Quote(string(r[:keep])) + "..." + what[m[3]:]
}

// posPrefix matches what follows the file name in the parser's errors.
var posPrefix = regexp.MustCompile(`^:(\d+):(\d+)(?::| =) (.*)$`)

// foundPrefix matches the token the parser names in its errors.
var foundPrefix = regexp.MustCompile(`^found ("(?:[^"\\]|\\.)*")`)

// where finds the line and column of a parser error that came without:
// it parses again, one byte a read, to learn how far the scanner got (but
// for a character of lookahead), and takes the last occurrence before
// that of the token the error names.
func where(src []byte, what string) (line, col int) {
	r := &byteReader{src: src}
	proto.NewParser(r).Parse() //nolint:errcheck // the same error again; only r.n is wanted
	off := r.n
	if m := foundPrefix.FindStringSubmatch(what); m != nil {
		if tok, err := strconv.Unquote(m[1]); err == nil && tok != "" {
			if i := bytes.LastIndex(src[:off], []byte(tok)); i >= 0 {
				off = i
			}
		}
	}
	return lineCol(src, off)
}

// byteReader gives the scanner one byte a Read, so that n is how far it
// has read. (testing/iotest.OneByteReader does this, but is a test
// package.)
type byteReader struct {
	src []byte
	n   int
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.n >= len(r.src) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = r.src[r.n]
	r.n++
	return 1, nil
}

// FullName is the rpc's full name, package.Service.Name.
func (r RPC) FullName() string {
	if r.Package == "" {
		return r.Service + "." + r.Name
	}
	return r.Package + "." + r.Service + "." + r.Name
}

// RPC returns the rpc with the given full name (package.Service.Name, as
// EventsFullName); an rpc of that name in another service or package is
// not it.
func (f *File) RPC(fullName string) (RPC, bool) {
	for _, r := range f.RPCs {
		if r.FullName() == fullName {
			return r, true
		}
	}
	return RPC{}, false
}

// CheckRuntimeService says whether the file is the CRI API the kubelet
// calls: package runtime.v1 with service RuntimeService. The error says
// what was expected and what the file has instead.
func (f *File) CheckRuntimeService() error {
	const calls = "the kubelet calls " + CRIPackage + "." + RuntimeService
	switch {
	case f.Package == "":
		return fmt.Errorf("%s: no package declaration, want package %s: %s", f.Path, CRIPackage, calls)
	case f.Package != CRIPackage:
		return fmt.Errorf("%s: package %s, want %s: %s", f.PackagePos, f.Package, CRIPackage, calls)
	}
	if slices.ContainsFunc(f.Services, func(s Service) bool { return s.Name == RuntimeService }) {
		return nil
	}
	has := "it declares no service"
	if len(f.Services) > 0 {
		names := make([]string, len(f.Services))
		for i, s := range f.Services {
			names[i] = s.Name
		}
		has = "it declares " + strings.Join(names, ", ")
	}
	return fmt.Errorf("%s: package %s declares no service %s (%s): %s", f.Path, CRIPackage, RuntimeService, has, calls)
}

// Elsewhere returns the rpcs named like GetContainerEvents that are not
// the one the kubelet calls: another service's, or another package's.
func (f *File) Elsewhere() []RPC {
	var out []RPC
	for _, r := range f.RPCs {
		if r.Name == EventsRPC && r.FullName() != EventsFullName {
			out = append(out, r)
		}
	}
	return out
}

// Message returns a message by name, stripping a package qualifier
// ("runtime.v1.ContainerStatus"), or nil.
func (f *File) Message(name string) *Message {
	if m, ok := f.Messages[name]; ok {
		return m
	}
	if i := strings.LastIndex(name, "."); i >= 0 {
		return f.Messages[name[i+1:]] // a qualified name: the package's own message
	}
	return nil
}

// Events is the event stream as a file declares it.
type Events struct {
	RPC        RPC
	Request    *Message // nil when the file does not declare it
	Response   *Message
	EventTypes []EnumValue // sorted by number
}

// FindEvents finds runtime.v1.RuntimeService.GetContainerEvents, its
// messages and the event types; ok is false when the file has no such rpc
// (CheckRuntimeService and Elsewhere say more).
func (f *File) FindEvents() (ev Events, ok bool) {
	ev.RPC, ok = f.RPC(EventsFullName)
	if !ok {
		return ev, false
	}
	ev.Request, ev.Response = f.Message(ev.RPC.Request), f.Message(ev.RPC.Response)
	if e, found := f.Enums[EventTypeEnum]; found {
		ev.EventTypes = append(ev.EventTypes, e.Values...)
		sort.SliceStable(ev.EventTypes, func(i, j int) bool { return ev.EventTypes[i].Number < ev.EventTypes[j].Number })
	}
	return ev, true
}
