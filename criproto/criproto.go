package criproto

import (
	"bytes"
	"fmt"
	"go/token"
	"os"
	"sort"
	"strings"
	"text/scanner"

	"github.com/emicklei/proto"
)

// The names plegvet looks for.
const (
	EventsRPC      = "GetContainerEvents"
	EventTypeEnum  = "ContainerEventType"
	RelativeToRoot = "pkg/apis/runtime/v1/api.proto" // within k8s.io/cri-api
)

// RPC is one rpc of a service.
type RPC struct {
	Service, Name     string
	Request, Response string
	ClientStreaming   bool
	ServerStreaming   bool
	Pos               token.Position
	Comment           string // the leading comment, without //
}

// Field is one field of a message.
type Field struct {
	Name     string
	Number   int
	Type     string // as written: "string", "repeated ContainerStatus" is Type "ContainerStatus" with Repeated
	Repeated bool
	Pos      token.Position
}

// Message is a message and its fields.
type Message struct {
	Name   string
	Fields []Field
	Pos    token.Position
}

// EnumValue is one value of an enum.
type EnumValue struct {
	Name   string
	Number int
	Pos    token.Position
}

// Enum is an enum and its values.
type Enum struct {
	Name   string
	Values []EnumValue
	Pos    token.Position
}

// File is what Parse read.
type File struct {
	Path     string
	Package  string
	Imports  []string
	RPCs     []RPC
	Messages map[string]*Message
	Enums    map[string]*Enum
}

// ReadFile parses the proto file at path; positions name path as given.
func ReadFile(path string) (*File, error) { return ReadFileNamed(path, path) }

// ReadFileNamed parses the proto file at path, naming it name in positions
// and errors (the path a user would type in a checkout, say).
func ReadFileNamed(path, name string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: no such file; want the CRI api.proto (k8s.io/cri-api/%s)", name, RelativeToRoot)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return Parse(name, src)
}

// Parse reads a proto file's source. name is used in positions and errors.
func Parse(name string, src []byte) (f *File, err error) {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil, fmt.Errorf("%s: empty file; want a proto file declaring service RuntimeService", name)
	}
	defer func() {
		if r := recover(); r != nil { // the parser is not ours; never let it take the program down
			f, err = nil, fmt.Errorf("%s: the proto parser failed: %v", name, r)
		}
	}()
	if err := checkBalance(name, src); err != nil {
		return nil, err
	}
	p := proto.NewParser(bytes.NewReader(src))
	p.Filename(name)
	def, err := p.Parse()
	if err != nil {
		msg := oneLine(err.Error())
		if !strings.HasPrefix(msg, name+":") {
			msg = name + ": " + strings.TrimPrefix(msg, "go scanner error at "+name+" = ")
		}
		return nil, fmt.Errorf("%s", msg)
	}
	f = &File{Path: name, Messages: map[string]*Message{}, Enums: map[string]*Enum{}}
	proto.Walk(def,
		proto.WithPackage(func(pk *proto.Package) { f.Package = pk.Name }),
		proto.WithImport(func(i *proto.Import) { f.Imports = append(f.Imports, i.Filename) }),
		proto.WithRPC(func(r *proto.RPC) {
			rpc := RPC{
				Name: r.Name, Request: r.RequestType, Response: r.ReturnsType,
				ClientStreaming: r.StreamsRequest, ServerStreaming: r.StreamsReturns,
				Pos: position(r.Position), Comment: comment(r.Comment),
			}
			if s, ok := r.Parent.(*proto.Service); ok {
				rpc.Service = s.Name
			}
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
	return f, nil
}

func position(p scanner.Position) token.Position {
	return token.Position{Filename: p.Filename, Line: p.Line, Column: p.Column}
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

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// RPC returns the rpc with the given name, in any service.
func (f *File) RPC(name string) (RPC, bool) {
	for _, r := range f.RPCs {
		if r.Name == name {
			return r, true
		}
	}
	return RPC{}, false
}

// Message returns a message by name, stripping a package qualifier
// ("runtime.v1.ContainerStatus"), or nil.
func (f *File) Message(name string) *Message {
	if m, ok := f.Messages[name]; ok {
		return m
	}
	if i := strings.LastIndex(name, "."); i >= 0 {
		return f.Messages[name[i+1:]]
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

// FindEvents finds GetContainerEvents, its messages and the event types;
// ok is false when the file has no such rpc.
func (f *File) FindEvents() (ev Events, ok bool) {
	ev.RPC, ok = f.RPC(EventsRPC)
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
