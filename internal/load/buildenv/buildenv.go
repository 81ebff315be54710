// Package buildenv is the build context plegvet reads a tree with, the
// one the go command would build a kubelet with: GOOS, GOARCH,
// CGO_ENABLED and GOFLAGS' -tags as go env reports them changed (from the
// environment or go env -w), linux/amd64 with cgo (the platform kubelets
// run on) where they are not; and whether
// a file that context leaves out declares feature gates, so that such a
// file is named rather than dropped without a word.
package buildenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plegvet/plegvet/featuregates"
)

// Context is build.Default set up for the environment's platform and
// tags; its OpenFile reads src, the one file MatchFile is then asked
// about.
func Context(src []byte) build.Context {
	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled = platform(settings())
	ctxt.BuildTags = Tags()
	ctxt.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
	return ctxt
}

// platform is the GOOS, GOARCH and cgo of the context for settings:
// linux/amd64 with cgo where they set none.
func platform(set map[string]string) (goos, goarch string, cgo bool) {
	goos, goarch, cgo = "linux", "amd64", true
	if v := set["GOOS"]; v != "" {
		goos = v
	}
	if v := set["GOARCH"]; v != "" {
		goarch = v
	}
	if v := set["CGO_ENABLED"]; v != "" {
		cgo = v == "1"
	}
	return goos, goarch, cgo
}

// settingNames are the settings read, in go env's names.
var settingNames = []string{"GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS"}

// settings are the go command's GOOS, GOARCH, CGO_ENABLED and GOFLAGS
// where they differ from its defaults (go env -changed: the environment
// and go env -w both count), read once; without a go command, the
// environment's. Where withoutGo can read them as the go command does,
// no go command is started to say it.
var settings = sync.OnceValue(func() map[string]string {
	names := settingNames
	if set, ok := withoutGo(); ok {
		return set
	}
	set := map[string]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append([]string{"env", "-changed", "-json"}, names...)...)
	// Outside any module: a go.mod's toolchain line must not make the go
	// command fetch another one to say what the environment says.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := cmd.Output(); err == nil && json.Unmarshal(out, &set) == nil {
		return set
	}
	for _, n := range names {
		set[n] = os.Getenv(n)
	}
	return set
})

// Start reads the settings in the background, for a caller with other
// work to do before it needs them (a tree to open): go env takes tens of
// milliseconds, in which a checkout's go.mod files are read. The go
// command runs with the environment as it is then (SetTags first).
func Start() { go settings() }

// withoutGo reads the settings as go env -changed would give them, where
// it can without starting a go command (about 25 ms of CPU, in every
// plegvet process that reads a tree): where GOOS, GOARCH and CGO_ENABLED
// are nowhere set but in the environment, to the values platform takes
// anyway (GOOS linux, GOARCH amd64, CGO_ENABLED 1; empty counts as none,
// as for the go command). GOFLAGS, whose every value but "" go env
// -changed reports, is read where cmd/go's cfg.Getenv reads it: the
// environment, else the go env -w file ($GOENV, else go/env under the
// user's configuration directory), else $GOROOT/go.env, each file read
// as the go command reads it (envFile). It says false whenever it cannot
// tell: a file it cannot read, a GOROOT it cannot find (the go command's
// own: $GOROOT, else the directory above the go command's, holding a
// go.env, as every toolchain since go1.21 does), a go env -w file that
// sets GOROOT, or a platform setting in either file (whether go env
// -changed reports CGO_ENABLED=0 depends on the C compiler it finds).
func withoutGo() (map[string]string, bool) {
	goos, goarch, _ := platform(nil)
	same := map[string]string{"GOOS": goos, "GOARCH": goarch, "CGO_ENABLED": "1"}
	for _, n := range []string{"GOOS", "GOARCH", "CGO_ENABLED"} {
		if v := os.Getenv(n); v != "" && v != same[n] {
			return nil, false
		}
	}
	platformOrRoot := func(file map[string]string, names ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool { _, ok := file[n]; return ok })
	}
	user := map[string]string{}
	envFile := os.Getenv("GOENV")
	if envFile == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, false
		}
		envFile = filepath.Join(dir, "go", "env")
	}
	if envFile != "off" {
		var err error
		if user, err = readEnvFile(envFile); err != nil && !errors.Is(err, fs.ErrNotExist) || platformOrRoot(user, "GOROOT", "GOOS", "GOARCH", "CGO_ENABLED") {
			return nil, false
		}
	}
	goroot := os.Getenv("GOROOT")
	if goroot == "" {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			return nil, false
		}
		if goCmd, err = filepath.EvalSymlinks(goCmd); err != nil {
			return nil, false
		}
		goroot = filepath.Dir(filepath.Dir(goCmd))
	}
	dist, err := readEnvFile(filepath.Join(goroot, "go.env"))
	if err != nil || platformOrRoot(dist, "GOOS", "GOARCH", "CGO_ENABLED") {
		return nil, false
	}
	flags := os.Getenv("GOFLAGS")
	if flags == "" {
		v, ok := user["GOFLAGS"]
		if !ok {
			v = dist["GOFLAGS"]
		}
		flags = v
	}
	set := map[string]string{}
	if flags != "" {
		set["GOFLAGS"] = flags
	}
	return set, true
}

// readEnvFile reads a go env file as cmd/go's cfg package does: a line
// is KEY=VALUE, its key starting with an upper-case letter at the start
// of the line, its value everything after the first '=' (nothing
// trimmed); other lines (comments) are skipped, and a later line wins.
func readEnvFile(file string) (map[string]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		i := bytes.IndexByte(line, '=')
		if i < 0 || line[0] < 'A' || 'Z' < line[0] {
			continue
		}
		m[string(line[:i])] = string(line[i+1:])
	}
	return m, nil
}

// Flags are the fields of GOFLAGS, as the go command has it.
func Flags() []string { return strings.Fields(settings()["GOFLAGS"]) }

// Tags are the build tags GOFLAGS' -tags sets, as the go command reads
// them (comma-separated; a space-separated list is the old form).
func Tags() []string {
	fs := flag.NewFlagSet("GOFLAGS", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tags := fs.String("tags", "", "")
	for _, f := range Flags() {
		if strings.HasPrefix(strings.TrimLeft(f, "-"), "tags=") {
			_ = fs.Parse([]string{f}) // a malformed GOFLAGS is the go command's to refuse
		}
	}
	return strings.FieldsFunc(*tags, func(r rune) bool { return r == ',' || r == ' ' })
}

// SetTags makes tags the build tags of this process and of the go
// commands it runs, through GOFLAGS (whose other -tags it replaces): go
// list and the loading then agree on the files. Called before anything
// is read.
func SetTags(tags string) {
	flags := slices.DeleteFunc(strings.Fields(os.Getenv("GOFLAGS")), func(f string) bool {
		return strings.HasPrefix(strings.TrimLeft(f, "-"), "tags=")
	})
	os.Setenv("GOFLAGS", strings.Join(append(flags, "-tags="+tags), " "))
}

// DefaultPlatform is Platform's name for the context when nothing is set.
const DefaultPlatform = "linux/amd64"

// Platform names the context for a message: "linux/amd64, cgo, tags a,b".
func Platform(ctxt build.Context) string {
	s := ctxt.GOOS + "/" + ctxt.GOARCH
	if !ctxt.CgoEnabled {
		s += " without cgo"
	}
	if len(ctxt.BuildTags) > 0 {
		s += ", tags " + strings.Join(ctxt.BuildTags, ",")
	}
	return s
}

// LeftOut is the line naming a file the build context leaves out that
// declares a feature map (rel is its name in the tree).
func LeftOut(rel string) string {
	return rel + ": left out by its build constraints on " + Platform(Context(nil)) +
		", and it declares a feature map: its gates are not read (set GOOS, GOARCH, CGO_ENABLED or GOFLAGS=-tags=... to read them)"
}

// DeclaresFeatureMap says whether Go source declares a map keyed by the
// feature-gate API's Feature type (a feature map, or a dependency map);
// source that does not parse says no (it is the loader's to name).
func DeclaresFeatureMap(src []byte) bool {
	if !bytes.Contains(src, []byte(featuregates.APIPath)) {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	api := map[string]bool{}
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil || !featuregates.IsAPIPath(p) {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		api[name] = true
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if m, ok := n.(*ast.MapType); ok {
			if sel, ok := m.Key.(*ast.SelectorExpr); ok && sel.Sel.Name == "Feature" {
				if x, ok := sel.X.(*ast.Ident); ok && api[x.Name] {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
