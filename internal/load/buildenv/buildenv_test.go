package buildenv

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestDeclaresFeatureMap(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"feature map", `package f
import "k8s.io/component-base/featuregate"
var m = map[featuregate.Feature]featuregate.FeatureSpec{}`, true},
		{"renamed import", `package f
import fg "k8s.io/component-base/featuregate"
var m = map[fg.Feature][]fg.Feature{}`, true},
		{"a use, no map", `package f
import "k8s.io/component-base/featuregate"
const X featuregate.Feature = "X"`, false},
		{"another package's Feature", `package f
import (
	_ "k8s.io/component-base/featuregate"
	featuregate "example.com/other"
)
var m = map[featuregate.Feature]bool{}`, false},
		{"does not parse", `package f
import "k8s.io/component-base/featuregate"
var m = map[featuregate.Feature`, false},
	} {
		if got := DeclaresFeatureMap([]byte(c.src)); got != c.want {
			t.Errorf("%s: DeclaresFeatureMap = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSetTagsReplacesGOFLAGSTags(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod -tags=old")
	SetTags("a,b")
	if got, want := Flags(), []string{"-mod=mod", "-tags=a,b"}; !slices.Equal(got, want) {
		t.Skipf("GOFLAGS read before the test set it (go env is read once a process): %q", got)
	}
	if got := Tags(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Tags() = %q, want [a b]", got)
	}
}

// withoutGo lets settings skip go env -changed: where it says it can
// tell, its settings must make the same platform and GOFLAGS as go env
// -changed's, and it must say it can where only the environment and the
// files set GOFLAGS (this machine's go env -w file sets -buildvcs=false)
// or the environment sets the platform's own values (as testscript's go
// setup does), else the go command is started in every process for
// nothing. Each place the go command reads a setting from is tried, and
// go env files' lines as the go command reads them.
func TestWithoutGoAgreesWithGoEnv(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	goEnvChanged := func(t *testing.T) map[string]string {
		t.Helper()
		cmd := exec.Command("go", append([]string{"env", "-changed", "-json"}, settingNames...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go env -changed: %v", err)
		}
		set := map[string]string{}
		if err := json.Unmarshal(out, &set); err != nil {
			t.Fatalf("go env -changed: %v\n%s", err, out)
		}
		return set
	}
	for _, c := range []struct {
		name    string
		env     map[string]string // besides the settings, unset
		envFile string            // the go env -w file's text; "" for none
		wantOK  bool
	}{
		{"nothing set", nil, "", true},
		{"no go env -w file", map[string]string{"GOENV": "off"}, "", true},
		{"a go env -w file of other settings", nil, "GOPROXY=off\n# GOOS=windows\n", true},
		{"the platform's own values in the environment", map[string]string{"GOOS": "linux", "GOARCH": "amd64", "CGO_ENABLED": "1"}, "", true},
		{"GOOS in the environment", map[string]string{"GOOS": "windows"}, "", false},
		{"GOARCH in the environment", map[string]string{"GOARCH": "arm64"}, "", false},
		{"cgo off in the environment", map[string]string{"CGO_ENABLED": "0"}, "", false},
		{"GOFLAGS in the environment", map[string]string{"GOFLAGS": "-tags=x"}, "", true},
		{"GOARCH from go env -w", map[string]string{"GOOS": "linux"}, "GOARCH=arm64\n", false},
		{"cgo from go env -w", nil, "CGO_ENABLED=0\n", false},
		{"GOROOT from go env -w", nil, "GOROOT=" + runtime.GOROOT() + "\n", false},
		{"GOFLAGS from go env -w", nil, "GOPROXY=off\nGOFLAGS=-tags=x -mod=mod\n", true},
		{"GOFLAGS from go env -w, the environment's wins", map[string]string{"GOFLAGS": "-tags=y"}, "GOFLAGS=-tags=x\n", true},
		{"-buildvcs=false from go env -w (as on this machine)", nil, "GOFLAGS=-buildvcs=false\n", true},
		{"GOFLAGS from go env -w, the last line wins", nil, "GOFLAGS=-tags=x\nGOFLAGS=-tags=z\n", true},
		{"GOFLAGS from go env -w, no newline at the end", nil, "GOFLAGS=-tags=x", true},
		{"lines the go command skips", nil, " GOFLAGS=-tags=x\n#GOFLAGS=-tags=y\ngoflags=-tags=w\n\n=\n", true},
		{"GOOS from go env -w, set empty in the environment", map[string]string{"GOOS": ""}, "GOOS=windows\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range settingNames {
				t.Setenv(n, "")
			}
			envFile := filepath.Join(dir, "absent")
			if c.envFile != "" {
				envFile = filepath.Join(dir, "env")
				if err := os.WriteFile(envFile, []byte(c.envFile), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("GOENV", envFile)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			changed := goEnvChanged(t)
			set, ok := withoutGo()
			if ok {
				goos, goarch, cgo := platform(set)
				wantGOOS, wantGOARCH, wantCgo := platform(changed)
				if goos != wantGOOS || goarch != wantGOARCH || cgo != wantCgo || set["GOFLAGS"] != changed["GOFLAGS"] {
					t.Errorf("withoutGo = %q (%s/%s, cgo %v), but go env -changed says %q (%s/%s, cgo %v)", set, goos, goarch, cgo, changed, wantGOOS, wantGOARCH, wantCgo)
				}
			}
			if ok != c.wantOK {
				t.Errorf("withoutGo can tell: %v, want %v (go env -changed: %q)", ok, c.wantOK, changed)
			}
		})
	}
}
