package runtimestream

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"

	"github.com/plegvet/plegvet/internal/engine"
	"github.com/plegvet/plegvet/internal/inputfile"
	"github.com/plegvet/plegvet/internal/tree"
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

// CheckAPI completes the answer for a module in which no server was
// found, from the k8s.io/cri-api its go.mod requires (fetched with the go
// command, as Fetch): when that API declares no GetContainerEvents, the
// runtime cannot serve it, and the verdict is false, given at the
// requirement. A version the proxy says does not exist (ErrNoSuchVersion)
// leaves the verdict nil, and Why says so; other fetch errors are
// returned. timeout is Fetch's.
func (r *Result) CheckAPI(ctx context.Context, timeout time.Duration) error {
	if r.CRIAPI == "" || slices.ContainsFunc(r.Servers, func(s Server) bool { return s.Shape != Missing }) {
		return nil
	}
	api, err := EventsInAPI(ctx, r.CRIAPI, timeout)
	// A proxy that could not be asked has said nothing of the version.
	if errors.Is(err, ErrNoSuchVersion) {
		r.Why += "; whether that API declares the rpc is unknown: " + err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	if api.Declared {
		r.Why += fmt.Sprintf(", whose api.proto declares the rpc (%s): the module's own code does not serve it where plegvet looks", api.Where)
		return nil
	}
	r.Streams = ptr(false)
	r.Why = fmt.Sprintf("%s requires %s %s (go.mod:%d), and %s: the runtime's gRPC server does not know GetContainerEvents, and answers Unimplemented", r.Module, CRIAPIModule, r.CRIAPI, r.CRIAPILine, api.Where)
	if len(r.Servers) > 0 {
		r.Why = fmt.Sprintf("its CRI server %s has no %s method, and %s", strings.TrimSuffix(r.Servers[0].Method, "."+methodName), methodName, r.Why)
	}
	return nil
}

// Read reads the runtime module rooted at dir and judges its CRI
// server's GetContainerEvents. A directory without go.mod is an error; a
// module with no CRI server is a Result with a nil verdict and why.
func Read(ctx context.Context, dir string) (*Result, error) {
	return read(ctx, dir, "")
}

// ReadModule is Read for a module whose path is known (one the go
// command fetched): its go.mod may be missing, as in releases made
// before the runtime had one.
func ReadModule(ctx context.Context, dir, module string) (*Result, error) {
	return read(ctx, dir, module)
}

func read(ctx context.Context, dir, module string) (*Result, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(dir), err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: not a directory: %w", inputfile.QuoteName(dir), inputfile.Cause(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory; want the root of a runtime's Go module", inputfile.QuoteName(dir))
	}
	mod, criAPI, criLine, err := readGoMod(filepath.Join(abs, "go.mod"))
	hasGoMod := !errors.Is(err, errNoGoMod)
	switch {
	case !hasGoMod && module != "":
		mod = module // a release without go.mod, named by the caller
	case err != nil:
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(dir), err)
	case module != "":
		mod = module
	}
	res := &Result{Dir: abs, Module: mod, CRIAPI: criAPI, CRIAPILine: criLine, Packages: []string{}, Modelled: []string{}, Stubbed: []string{}, Problems: []string{}}
	pkgs, problems, err := scan(ctx, abs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: reading stopped: %w", inputfile.QuoteName(dir), ctx.Err())
		}
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(dir), err)
	}
	res.Problems = append(res.Problems, problems...)
	if len(pkgs) == 0 {
		res.Why = "no package of " + mod + " declares " + methodName + " with the CRI server's signature, registers a CRI v1 RuntimeService or embeds " + unimplemented + requiresWords(criAPI, hasGoMod)
		return res, nil
	}
	t := &tree.Tree{Dir: abs, Module: mod}
	paths := make([]string, len(pkgs))
	for i, p := range pkgs {
		paths[i] = importPath(mod, p)
	}
	loaded, err := engine.Load(ctx, engine.Request{Tree: t, Paths: paths})
	if err != nil {
		return nil, err
	}
	res.Packages = pkgs
	res.Modelled = append(res.Modelled, loaded.Modelled...) // [] rather than null
	res.Stubbed = append(res.Stubbed, loaded.Stubbed...)
	for _, p := range loaded.Problems {
		res.Problems = append(res.Problems, p.Error())
	}
	r := newReader(t, loaded)
	r.run()
	res.Servers = r.servers
	res.Streams, res.Why = verdict(mod, requiresWords(criAPI, hasGoMod), r.servers)
	if r.budget < 0 {
		res.Streams = nil
		res.Why = fmt.Sprintf("plegvet stopped following values after %d steps, so the servers found may not be all: %s", maxSteps, res.Why)
	}
	return res, nil
}

func importPath(mod, rel string) string {
	if rel == "." {
		return mod
	}
	return mod + "/" + rel
}

var errNoGoMod = errors.New("no go.mod; want the root of a runtime's Go module")

// readGoMod reads the module path and the k8s.io/cri-api requirement.
func readGoMod(name string) (mod, criAPI string, criLine int, err error) {
	if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
		return "", "", 0, errNoGoMod
	}
	data, err := inputfile.Read(name)
	if err != nil {
		return "", "", 0, fmt.Errorf("go.mod %w", err)
	}
	f, err := modfile.ParseLax("go.mod", data, func(_, v string) (string, error) { return v, nil })
	if err != nil {
		return "", "", 0, errors.New(inputfile.OneLine(err.Error()))
	}
	if f.Module == nil || f.Module.Mod.Path == "" {
		return "", "", 0, errors.New("go.mod has no module line")
	}
	for _, r := range f.Require {
		if r.Mod.Path == CRIAPIModule {
			criAPI = r.Mod.Version
			if r.Syntax != nil {
				criLine = r.Syntax.Start.Line
			}
		}
	}
	return f.Module.Mod.Path, criAPI, criLine, nil
}

func requiresWords(criAPI string, hasGoMod bool) string {
	if !hasGoMod {
		return "; the release has no go.mod"
	}
	if criAPI == "" {
		return "; its go.mod does not require k8s.io/cri-api"
	}
	return "; its go.mod requires k8s.io/cri-api " + criAPI
}

// verdict joins the servers' shapes.
func verdict(mod, requires string, servers []Server) (*bool, string) {
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
