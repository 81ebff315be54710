package ci

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/mod/modfile"

	"github.com/plegvet/plegvet/gclplugin"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/render/sarif"
	"github.com/plegvet/plegvet/internal/testkit/golangcilintbuild"
)

// decodeStrictly decodes YAML into v, refusing keys v has no field for.
func decodeStrictly(t *testing.T, name string, data []byte, v any) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// The parts of a GitHub Actions workflow the recipe may use: any other key
// is a typo, and fails the test.
type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency map[string]any    `yaml:"concurrency"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]job    `yaml:"jobs"`
}

type job struct {
	RunsOn         string            `yaml:"runs-on"`
	TimeoutMinutes int               `yaml:"timeout-minutes"`
	Permissions    map[string]string `yaml:"permissions"`
	Env            map[string]string `yaml:"env"`
	Steps          []step            `yaml:"steps"`
}

type step struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]any    `yaml:"with"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
}

// steps of the plegvet job, found by what they do.
type steps struct {
	checkout, setupGo, install, plegvet, upload int // indexes, -1 when absent
	job                                         job
	sarif                                       string // the file plegvet -sarif writes
}

var sarifFlag = regexp.MustCompile(`^plegvet -sarif (\S+) \./pkg/\.\.\.$`)

func readWorkflow(t *testing.T) (workflow, steps) {
	t.Helper()
	data, err := os.ReadFile(workflowFile)
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	decodeStrictly(t, workflowFile, data, &wf)
	if len(wf.Jobs) != 1 {
		t.Fatalf("%s: %d jobs, want the one plegvet job", workflowFile, len(wf.Jobs))
	}
	s := steps{checkout: -1, setupGo: -1, install: -1, plegvet: -1, upload: -1}
	for _, j := range wf.Jobs {
		s.job = j
	}
	for i, st := range s.job.Steps {
		switch {
		case strings.HasPrefix(st.Uses, "actions/checkout@"):
			s.checkout = i
		case strings.HasPrefix(st.Uses, "actions/setup-go@"):
			s.setupGo = i
		case strings.HasPrefix(st.Uses, "github/codeql-action/upload-sarif@"):
			s.upload = i
		case strings.Contains(st.Run, "go install github.com/plegvet/plegvet/cmd/plegvet@"),
			strings.Contains(st.Run, `go install "github.com/plegvet/plegvet/cmd/plegvet@`):
			s.install = i
		case sarifFlag.MatchString(strings.TrimSpace(st.Run)):
			s.plegvet = i
			s.sarif = sarifFlag.FindStringSubmatch(strings.TrimSpace(st.Run))[1]
		}
		if strings.Contains(st.Run, "${{") {
			t.Errorf("step %q: an expression in run: (pass it through env: instead)", st.Name)
		}
	}
	return wf, s
}

func TestWorkflow(t *testing.T) {
	wf, s := readWorkflow(t)

	for _, event := range []string{"push", "pull_request"} {
		if _, ok := wf.On[event]; !ok {
			t.Errorf("on: lacks %s", event)
		}
	}
	perms := wf.Permissions
	if s.job.Permissions != nil {
		perms = s.job.Permissions
	}
	if perms["security-events"] != "write" {
		t.Errorf("permissions: security-events is %q, want write (upload-sarif needs it)", perms["security-events"])
	}
	if perms["contents"] != "read" {
		t.Errorf("permissions: contents is %q, want read (checkout needs it)", perms["contents"])
	}

	order := []struct {
		name string
		i    int
	}{{"actions/checkout", s.checkout}, {"actions/setup-go", s.setupGo}, {"go install plegvet", s.install},
		{"plegvet -sarif FILE ./pkg/...", s.plegvet}, {"upload-sarif", s.upload}}
	for k, o := range order {
		if o.i < 0 {
			t.Fatalf("no %s step", o.name)
		}
		if k > 0 && o.i < order[k-1].i {
			t.Errorf("step %s runs before %s", o.name, order[k-1].name)
		}
	}
	steps := s.job.Steps

	with := steps[s.setupGo].With
	if with["go-version-file"] != "go.mod" || with["cache"] != true {
		t.Errorf("setup-go with: %v; want go-version-file: go.mod and cache: true", with)
	}

	if got, want := s.job.Env["PLEGVET_VERSION"], scriptVersion(t); got != want {
		t.Errorf("the job's PLEGVET_VERSION is %q; %s pins %s", got, scriptFile, want)
	}
	if !strings.Contains(steps[s.install].Run, "${PLEGVET_VERSION}") {
		t.Errorf("the install step does not install PLEGVET_VERSION: %s", steps[s.install].Run)
	}

	up := steps[s.upload]
	if up.With["sarif_file"] != s.sarif {
		t.Errorf("upload-sarif sarif_file is %v; plegvet writes %s", up.With["sarif_file"], s.sarif)
	}
	for _, want := range []string{"always()", "hashFiles('" + s.sarif + "') != ''"} {
		if !strings.Contains(up.If, want) {
			t.Errorf("upload-sarif if: %q lacks %s: the findings must upload after the plegvet step fails because of them, and only when it wrote the file", up.If, want)
		}
	}
	if got, want := up.With["category"], vetCategory(); got != want {
		t.Errorf("upload-sarif category is %v; want %s, the category of the automationDetails.id plegvet writes (%s)", got, want, sarif.AutomationID(sarif.VetCategory))
	}
	for i, st := range steps[:s.upload] {
		if i > s.plegvet && !strings.Contains(st.If, "always()") {
			t.Errorf("step %q between plegvet and the upload is skipped after findings", st.Name)
		}
	}
}

// runStep runs a run: step as a GitHub-hosted runner does (bash -e), with
// the job's and the step's env, in dir.
func runStep(t *testing.T, bash string, j job, st step, dir string, env ...string) (int, string, string) {
	t.Helper()
	for k, v := range j.Env {
		env = append(env, k+"="+v)
	}
	for k, v := range st.Env {
		env = append(env, k+"="+v)
	}
	return run(t, dir, env, bash, "--noprofile", "--norc", "-e", "-c", st.Run)
}

// TestWorkflowSteps runs the workflow's own run: steps here: the install
// step with a fake go command, the plegvet step on look-alike trees.
func TestWorkflowSteps(t *testing.T) {
	t.Parallel()
	bash := needBash(t)
	_, s := readWorkflow(t)
	if s.install < 0 || s.plegvet < 0 {
		t.Fatal("the workflow lacks the install or the plegvet step")
	}

	t.Run("install", func(t *testing.T) {
		t.Parallel()
		st := s.job.Steps[s.install]
		if st.WorkingDirectory != "${{ runner.temp }}" {
			t.Errorf("install step working-directory: %q, want ${{ runner.temp }} (outside the tree)", st.WorkingDirectory)
		}
		fake, log := fakeGo(t, 0)
		temp := t.TempDir() // runner.temp
		gopathBin := t.TempDir()
		code, out, errOut := runStep(t, bash, s.job, st, temp,
			"PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"), "FAKE_DEFAULT_GOBIN="+gopathBin,
			"GOBIN=", "GOTOOLCHAIN=local", "GOFLAGS=-mod=vendor", "GOWORK=")
		if code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		got := readLog(t, log)
		want := map[string]string{
			"args":        "install github.com/plegvet/plegvet/cmd/plegvet@" + scriptVersion(t),
			"pwd":         temp,
			"GOTOOLCHAIN": "auto",
			"GOWORK":      "off",
			"GOFLAGS":     "",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("go install saw %s=%q, want %q", k, got[k], v)
			}
		}
		if _, err := os.Stat(filepath.Join(gopathBin, "plegvet")); err != nil {
			t.Errorf("plegvet not installed into GOPATH/bin: %v", err)
		}
	})

	bin := plegvetBin(t)
	path := "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	st := s.job.Steps[s.plegvet]
	for _, tc := range []struct {
		name       string
		change     func(*testing.T, tree) string // returns a finding that must be printed
		wantCode   int
		sarif      []string // in the SARIF file
		sarifMaybe bool     // the file may be missing
	}{
		{
			name:     "clean tree",
			wantCode: exitClean,
			sarif:    []string{`"version": "2.1.0"`, `"results": []`},
		},
		{
			name:     "Alpha gate on by default",
			change:   func(t *testing.T, tr tree) string { return alphaFinding(tr.alphaOn(t)) },
			wantCode: exitFindings,
			sarif:    []string{`"ruleId": "featuregate/alpha-default-on"`, `"uri": "pkg/features/kube_features.go"`},
		},
		{
			// plegvet may stop before writing the file, or write what it
			// could analyse: the upload step's hashFiles() condition
			// covers both.
			name: "packages that do not load",
			change: func(t *testing.T, tr tree) string {
				writeFile(t, filepath.Join(filepath.Dir(tr.features), "broken.go"), "package features\n\nfunc Broken( {\n")
				return "broken.go:3:"
			},
			wantCode:   exitLoad,
			sarifMaybe: true,
			sarif:      []string{`"version": "2.1.0"`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			want := ""
			if tc.change != nil {
				want = tc.change(t, tr)
			}
			code, out, errOut := runStep(t, bash, s.job, st, tr.root, path)
			if code != tc.wantCode || !strings.Contains(errOut, want) {
				t.Fatalf("exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", code, tc.wantCode, want, out, errOut)
			}
			data, err := os.ReadFile(filepath.Join(tr.root, s.sarif))
			if tc.sarifMaybe && errors.Is(err, os.ErrNotExist) {
				t.Logf("no %s after exit %d: the upload step is skipped", s.sarif, code)
				return
			}
			if err != nil {
				t.Fatalf("no SARIF after exit %d: %v", code, err)
			}
			for _, w := range tc.sarif {
				if !bytes.Contains(data, []byte(w)) {
					t.Errorf("%s lacks %s", s.sarif, w)
				}
			}
			if got := sarifCategories(t, data); !slices.Equal(got, []string{vetCategory()}) {
				t.Errorf("%s: runs of categories %q; want one run, of the upload step's category %s", s.sarif, got, vetCategory())
			}
		})
	}
}

// vetCategory is the code scanning category of the standalone analyzer's
// SARIF: its automationDetails.id up to the last /, as GitHub reads it.
func vetCategory() string {
	return strings.TrimSuffix(sarif.AutomationID(sarif.VetCategory), "/")
}

// sarifCategories are the categories of a SARIF log's runs, in order: ""
// for a run without an automationDetails.id.
func sarifCategories(t *testing.T, data []byte) []string {
	t.Helper()
	var log struct {
		Runs []struct {
			AutomationDetails struct {
				ID string `json:"id"`
			} `json:"automationDetails"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range log.Runs {
		id := r.AutomationDetails.ID
		out = append(out, id[:max(strings.LastIndex(id, "/"), 0)])
	}
	return out
}

// plegvetSettings returns linters.settings.custom.plegvet of a
// .golangci.yml and checks what golangci-lint needs around it.
func plegvetSettings(t *testing.T, name string, data []byte) map[string]any {
	t.Helper()
	var cfg struct {
		Version string `yaml:"version"`
		Linters struct {
			Default  string   `yaml:"default"`
			Enable   []string `yaml:"enable"`
			Settings struct {
				Custom map[string]struct {
					Type        string         `yaml:"type"`
					Path        string         `yaml:"path"`
					Description string         `yaml:"description"`
					OriginalURL string         `yaml:"original-url"`
					Settings    map[string]any `yaml:"settings"`
				} `yaml:"custom"`
			} `yaml:"settings"`
		} `yaml:"linters"`
	}
	decodeStrictly(t, name, data, &cfg)
	if cfg.Version != "2" {
		t.Errorf("%s: version %q, want \"2\" (golangci-lint v2)", name, cfg.Version)
	}
	if !slices.Contains(cfg.Linters.Enable, gclplugin.Name) {
		t.Errorf("%s: linters.enable lacks %s", name, gclplugin.Name)
	}
	p, ok := cfg.Linters.Settings.Custom[gclplugin.Name]
	if !ok {
		t.Fatalf("%s: no linters.settings.custom.%s", name, gclplugin.Name)
	}
	if p.Type != "module" || p.Path != "" {
		t.Errorf("%s: plegvet is type %q, path %q; want a module plugin (type: module, no path)", name, p.Type, p.Path)
	}
	return p.Settings
}

// settingKeys flattens the settings' keys as gclplugin names them:
// featuregate.rules, disable.
func settingKeys(settings map[string]any) []string {
	var keys []string
	for k, v := range settings {
		if sub, ok := v.(map[string]any); ok {
			for sk := range sub {
				keys = append(keys, k+"."+sk)
			}
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestGolangciSettings(t *testing.T) {
	data, err := os.ReadFile(golangciFile)
	if err != nil {
		t.Fatal(err)
	}
	settings := plegvetSettings(t, golangciFile, data)

	var known []string
	for _, st := range suite.Settings() {
		known = append(known, st.Analyzer+"."+st.Key)
	}
	known = append(known, "disable")
	slices.Sort(known)
	if got := settingKeys(settings); !slices.Equal(got, known) {
		t.Errorf("%s spells out the settings %v; gclplugin accepts exactly %v", golangciFile, got, known)
	}

	got, err := gclplugin.DecodeSettings(settings)
	if err != nil {
		t.Fatalf("%s: %v", golangciFile, err)
	}
	def, err := gclplugin.DecodeSettings(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Config, def.Config) || len(got.Disable) != 0 {
		t.Errorf("%s does not show the defaults: it decodes to %+v, the defaults are %+v", golangciFile, got, def)
	}
}

// TestGolangciLint runs a golangci-lint built with the plugin (the
// tools/golangci-lint module, built once for this test and gclplugin's by
// internal/testkit/golangcilintbuild) with golangci.yml as a tree's .golangci.yml.
func TestGolangciLint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds golangci-lint (minutes on a cold cache); skipped with -short")
	}
	gcl := golangcilintbuild.ForTest(t) // shared with gclplugin's test
	cfg, err := os.ReadFile(golangciFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		alphaOn   bool
		wantCode  int // golangci-lint's: 0 no issues, 1 issues
		wantAlpha bool
	}{
		{name: "clean tree", wantCode: 0},
		{name: "Alpha gate on by default", alphaOn: true, wantCode: 1, wantAlpha: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTree(t)
			line := 0
			if tc.alphaOn {
				line = tr.alphaOn(t)
			}
			writeFile(t, filepath.Join(tr.root, ".golangci.yml"), string(cfg))
			code, out, errOut := run(t, tr.root, []string{"GOLANGCI_LINT_CACHE=" + t.TempDir()}, gcl, "run",
				"--output.text.print-issued-lines=false", "--output.text.colors=false", "./...")
			all := out + errOut
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tc.wantCode, all)
			}
			finding := "pkg/features/kube_features.go:" + strconv.Itoa(line) + ":3: featuregate: feature gate EventedPLEG is Alpha but on by default at 1.26; Alpha gates must default to false (plegvet)"
			if tc.wantAlpha != strings.Contains(all, finding) {
				t.Errorf("want the finding %v:\n\t%s\noutput:\n%s", tc.wantAlpha, finding, all)
			}
		})
	}
}

var yamlBlock = regexp.MustCompile("(?ms)^```yaml\n(.*?)^```")

// docYAML returns the YAML blocks of docs/ci.md.
func docYAML(t *testing.T) [][]byte {
	t.Helper()
	doc, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]byte
	for _, m := range yamlBlock.FindAllSubmatch(doc, -1) {
		blocks = append(blocks, m[1])
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no yaml block", docFile)
	}
	return blocks
}

// TestDocYAML: every YAML block of docs/ci.md parses; the .custom-gcl.yml
// one names the plegvet plugin, at the pinned version, for the
// golangci-lint this repository builds with it; a .golangci.yml one has
// settings gclplugin accepts.
func TestDocYAML(t *testing.T) {
	gomod, err := os.ReadFile(filepath.Join("..", "..", "tools", "golangci-lint", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	gclVersion := ""
	for _, r := range mf.Require {
		if r.Mod.Path == "github.com/golangci/golangci-lint/v2" {
			gclVersion = r.Mod.Version
		}
	}

	customs := 0
	for i, b := range docYAML(t) {
		name := docFile + " yaml block " + strconv.Itoa(i+1)
		var top map[string]any
		if err := yaml.Unmarshal(b, &top); err != nil {
			t.Errorf("%s: %v\n%s", name, err, b)
			continue
		}
		switch {
		case top["plugins"] != nil:
			customs++
			var c struct {
				Version     string `yaml:"version"`
				Name        string `yaml:"name"`
				Destination string `yaml:"destination"`
				Plugins     []struct {
					Module  string `yaml:"module"`
					Import  string `yaml:"import"`
					Version string `yaml:"version"`
					Path    string `yaml:"path"`
				} `yaml:"plugins"`
			}
			decodeStrictly(t, name, b, &c)
			if c.Version != gclVersion {
				t.Errorf("%s: golangci-lint %s; tools/golangci-lint builds %s", name, c.Version, gclVersion)
			}
			found := false
			for _, p := range c.Plugins {
				if p.Module != "github.com/plegvet/plegvet" {
					continue
				}
				found = true
				if p.Import != "github.com/plegvet/plegvet/gclplugin" || p.Version != scriptVersion(t) || p.Path != "" {
					t.Errorf("%s: plegvet plugin %+v; want import github.com/plegvet/plegvet/gclplugin, version %s", name, p, scriptVersion(t))
				}
			}
			if !found {
				t.Errorf("%s: no plugin with module github.com/plegvet/plegvet", name)
			}
		case top["linters"] != nil:
			if _, err := gclplugin.DecodeSettings(plegvetSettings(t, name, b)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	if customs != 1 {
		t.Errorf("%s has %d .custom-gcl.yml blocks, want 1", docFile, customs)
	}
}
