// Reading a runtime's module: finding its CRI server's packages, loading
// them, and handing them to runtimestream, which judges the servers.

package runtimeread

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

	"github.com/plegvet/plegvet/internal/load/engine"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/runtimestream"
)

// CheckAPI completes the answer r for a module in which no server was
// found, from the k8s.io/cri-api its go.mod requires (fetched with the go
// command, as Fetch): when that API declares no GetContainerEvents, the
// runtime cannot serve it, and the verdict is false, given at the
// requirement. A version the proxy says does not exist (ErrNoSuchVersion)
// leaves the verdict nil, and Why says so; other fetch errors are
// returned. timeout is Fetch's.
func CheckAPI(ctx context.Context, r *runtimestream.Result, timeout time.Duration) error {
	if r.CRIAPI == "" || slices.ContainsFunc(r.Servers, func(s runtimestream.Server) bool { return s.Shape != runtimestream.Missing }) {
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
	r.Streams = new(bool)
	r.Why = fmt.Sprintf("%s requires %s %s (go.mod:%d), and %s: the runtime's gRPC server does not know GetContainerEvents, and answers Unimplemented", r.Module, CRIAPIModule, r.CRIAPI, r.CRIAPILine, api.Where)
	if len(r.Servers) > 0 {
		r.Why = fmt.Sprintf("its CRI server %s has no %s method, and %s", strings.TrimSuffix(r.Servers[0].Method, "."+runtimestream.MethodName), runtimestream.MethodName, r.Why)
	}
	return nil
}

// Read reads the runtime module rooted at dir and judges its CRI
// server's GetContainerEvents. A directory without go.mod is an error; a
// module with no CRI server is a Result with a nil verdict and why.
func Read(ctx context.Context, dir string) (*runtimestream.Result, error) {
	return read(ctx, dir, "")
}

// ReadModule is Read for a module whose path is known (one the go
// command fetched): its go.mod may be missing, as in releases made
// before the runtime had one.
func ReadModule(ctx context.Context, dir, module string) (*runtimestream.Result, error) {
	return read(ctx, dir, module)
}

func read(ctx context.Context, dir, module string) (*runtimestream.Result, error) {
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
	res := &runtimestream.Result{Dir: abs, Module: mod, CRIAPI: criAPI, CRIAPILine: criLine, Packages: []string{}, Modelled: []string{}, Stubbed: []string{}, Problems: []string{}}
	dirs, problems, err := scan(ctx, abs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: reading stopped: %w", inputfile.QuoteName(dir), ctx.Err())
		}
		return nil, fmt.Errorf("%s: %w", inputfile.QuoteName(dir), err)
	}
	res.Problems = append(res.Problems, problems...)
	if len(dirs) == 0 {
		res.Why = "no package of " + mod + " declares " + runtimestream.MethodName + " with the CRI server's signature, registers a CRI v1 RuntimeService or embeds " + runtimestream.UnimplementedServer + runtimestream.RequiresWords(criAPI, hasGoMod)
		return res, nil
	}
	t := &tree.Tree{Dir: abs, Module: mod}
	paths := make([]string, len(dirs))
	for i, p := range dirs {
		paths[i] = importPath(mod, p)
	}
	loaded, err := engine.Load(ctx, engine.Request{Tree: t, Paths: paths})
	if err != nil {
		return nil, err
	}
	res.Packages = dirs
	res.Modelled = append(res.Modelled, loaded.Modelled...) // [] rather than null
	res.Stubbed = append(res.Stubbed, loaded.Stubbed...)
	for _, p := range loaded.Problems {
		res.Problems = append(res.Problems, p.Error())
	}
	pkgs := make([]*runtimestream.Package, len(loaded.Packages))
	for i, p := range loaded.Packages {
		pkgs[i] = &runtimestream.Package{Path: p.PkgPath, Files: p.Syntax, Info: p.TypesInfo}
	}
	servers, exhausted := runtimestream.Servers(loaded.Fset, pkgs, mod, t.Rel)
	res.Servers = servers
	res.Streams, res.Why = runtimestream.Verdict(mod, runtimestream.RequiresWords(criAPI, hasGoMod), servers)
	if exhausted {
		res.Streams = nil
		res.Why = fmt.Sprintf("plegvet stopped following values after %d steps, so the servers found may not be all: %s", runtimestream.MaxSteps, res.Why)
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
