package runtimestream

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/plegvet/plegvet/srcpos"
)

// Shape is how a GetContainerEvents implementation answers the rpc.
type Shape string

const (
	// Sends: the method sends events on the stream.
	Sends Shape = "sends"
	// Unimplemented: the method returns an error with codes.Unimplemented.
	Unimplemented Shape = "unimplemented"
	// Inherited: the type has no method of its own; the generated
	// UnimplementedRuntimeServiceServer's, which answers Unimplemented,
	// is promoted to it.
	Inherited Shape = "inherited-unimplemented"
	// EndsAtOnce: the method never touches the stream; it returns, and
	// the stream ends without an event.
	EndsAtOnce Shape = "ends-at-once"
	// Missing: the type registered has no GetContainerEvents at all; that
	// compiles only against a CRI API without the rpc, which CheckAPI
	// reads.
	Missing Shape = "no-method"
	// Unknown: plegvet could not tell.
	Unknown Shape = "unknown"
)

// Streams says whether a shape streams events: true, false, or nil for
// Unknown.
func (s Shape) Streams() *bool {
	switch s {
	case Sends:
		return ptr(true)
	case Unimplemented, Inherited, EndsAtOnce:
		return ptr(false)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// Step is one link from a registration to the method that decides: a
// registration, a wrapper handing the stream on, a method promoted from
// an embedded field, a value plegvet could not follow (no Pos).
type Step struct {
	Pos  *srcpos.Pos `json:"pos"` // File relative to the module root
	What string      `json:"what"`
}

// Server is one implementation of GetContainerEvents reached.
type Server struct {
	// Method is the method as its source declares it, qualified by its
	// package's directory: pkg/cri/server.(*criService).GetContainerEvents.
	// For an inherited method, the type and the embedded field.
	Method string `json:"method"`
	// Pos is the method's declaration, or the embedded field.
	Pos srcpos.Pos `json:"pos"`
	// Shape is how it answers the rpc, and StreamsEvents what that means
	// (Shape.Streams).
	Shape         Shape `json:"shape"`
	StreamsEvents *bool `json:"streamsEvents"`
	// Evidence is what decided: the Send call, the return of
	// Unimplemented; null when the declaration is all there is.
	Evidence *srcpos.Pos `json:"evidence"`
	// Why says it in words.
	Why string `json:"why"`
	// Via are the links that led to it, the registration first.
	Via []Step `json:"via"`
}

// Result is what Read found in a module.
type Result struct {
	Dir    string // the module's root
	Module string // as its go.mod declares it
	// CRIAPI is the version of k8s.io/cri-api its go.mod requires; ""
	// when it requires none. CRIAPILine is the requirement's line in
	// go.mod.
	CRIAPI     string
	CRIAPILine int
	// Servers are the implementations reached, in the order found.
	Servers []Server
	// Streams is the verdict: true when every server sends, false when
	// none can, nil when none was found, one is Unknown, or they disagree.
	Streams *bool
	// Why says what decided, or why nothing did.
	Why string
	// Packages are the packages type-checked, relative to the root.
	Packages []string
	// Modelled and Stubbed are the imports answered by built-in models
	// and by empty packages.
	Modelled, Stubbed []string
	// Problems are the files that could not be read or parsed in full.
	Problems []string
}

// Decides is the server whose position the verdict is given at: the
// first one found; nil when there is none.
func (r *Result) Decides() *Server {
	if len(r.Servers) == 0 {
		return nil
	}
	return &r.Servers[0]
}

// VerdictPos is where the verdict is decided: the first server's
// declaration, or, when the CRI API the module requires lacks the rpc
// (CheckAPI), the requirement in go.mod; zero without a verdict.
func (r *Result) VerdictPos() srcpos.Pos {
	switch {
	case r.Streams == nil:
		return srcpos.Pos{}
	case len(r.Servers) > 0 && r.Servers[0].Shape != Missing:
		return r.Servers[0].Pos
	}
	return srcpos.Pos{File: "go.mod", Line: r.CRIAPILine, Column: 1}
}

// RequiresWords says what a module's go.mod requires of the CRI API, for
// a verdict's why.
func RequiresWords(criAPI string, hasGoMod bool) string {
	if !hasGoMod {
		return "; the release has no go.mod"
	}
	if criAPI == "" {
		return "; its go.mod does not require k8s.io/cri-api"
	}
	return "; its go.mod requires k8s.io/cri-api " + criAPI
}

// Verdict joins the servers' shapes: true when every server sends,
// false when none can, nil when none was found, one is unknown, or they
// disagree; with why.
func Verdict(mod, requires string, servers []Server) (*bool, string) {
	if len(servers) == 0 {
		return nil, "no " + methodName + " implementation of a CRI server was found in " + mod + requires
	}
	var unknown, yes, no, whys []string
	for _, s := range servers {
		whys = append(whys, s.Why)
		switch st := s.Shape.Streams(); {
		case st == nil:
			unknown = append(unknown, s.Method+": "+s.Why)
		case *st:
			yes = append(yes, s.Method)
		default:
			no = append(no, s.Method)
		}
	}
	switch {
	case len(unknown) > 0:
		return nil, "cannot tell: " + strings.Join(unknown, "; ")
	case len(yes) > 0 && len(no) > 0:
		return nil, fmt.Sprintf("the module's CRI servers disagree: %s %s; %s %s; which one runs depends on how the runtime is built or configured", strings.Join(yes, ", "), isAre(len(yes), "streams", "stream"), strings.Join(no, ", "), isAre(len(no), "does not", "do not"))
	case len(servers) == 1:
		return ptr(len(yes) > 0), servers[0].Why
	case len(yes) > 0:
		all := fmt.Sprintf("all %d of its CRI servers", len(servers))
		if len(servers) == 2 {
			all = "both its CRI servers"
		}
		return ptr(true), fmt.Sprintf("%s stream: %s", all, strings.Join(whys, "; "))
	}
	none := fmt.Sprintf("none of its %d CRI servers can", len(servers))
	if len(servers) == 2 {
		none = "neither of its CRI servers can"
	}
	return ptr(false), fmt.Sprintf("%s stream: %s", none, strings.Join(whys, "; "))
}

func isAre(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Package is a type-checked package of the module: its path, its files'
// syntax and their types.
type Package struct {
	Path  string
	Files []*ast.File
	Info  *types.Info
}

// Servers follows the loaded packages of module (their syntax and types)
// from the CRI server's registrations to the methods that serve
// GetContainerEvents, and judges each, in the order found; rel names a
// file relative to the module's root. exhausted says the work bound
// (MaxSteps) was reached, so the servers found may not be all.
func Servers(fset *token.FileSet, pkgs []*Package, module string, rel func(string) string) (servers []Server, exhausted bool) {
	r := newReader(fset, pkgs, module, rel)
	r.run()
	return r.servers, r.budget < 0
}
