package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/plegvet/plegvet"
)

// inexactTree writes the fork of testdata/script/health_inexact.txtar to
// a directory, its health method and kubelet taken from the archive's
// variants (the variant's name; "" keeps the kubelet as written).
func inexactTree(t *testing.T, healthy, kubelet string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", "health_inexact.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string][]byte{}
	for _, f := range ar.Files {
		files[f.Name] = f.Data
	}
	for _, f := range ar.Files {
		name, ok := strings.CutPrefix(f.Name, "fork/")
		if !ok {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	put := func(variant, to string) {
		b, ok := files["variants/"+variant+".go"]
		if !ok {
			t.Fatalf("no variant %s", variant)
		}
		if err := os.WriteFile(filepath.Join(dir, to), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	put(healthy, "pkg/kubelet/pleg/healthy.go")
	if kubelet != "" {
		put(kubelet, "pkg/kubelet/kubelet.go")
	}
	return dir
}

// The rules written for health code plegvet follows where the releases'
// differ (a constant threshold plus a minute, a threshold reassigned
// after the literal) pass promtool check rules, quote the fork's own
// words and the value in force; for health code it does not recognise
// exactly, the file written holds no PLEGUnhealthy or PLEGRelistStalled
// rule and still passes promtool.
func TestAlertRulesInexactPromtool(t *testing.T) {
	if testing.Short() {
		t.Skip("runs promtool")
	}
	tool := promtool(t)
	for _, tt := range []struct {
		name, healthy, kubelet string
		want                   []string // in the rules file; nil: no PLEGUnhealthy rule
	}{
		{"constant plus a minute", "constplus", "", []string{"alert: PLEGUnhealthy", "> 240)", "relist last ok {{ $value | humanizeDuration }} ago, limit 4m0s"}},
		{"reassigned", "base", "reassigned", []string{"alert: PLEGUnhealthy", "> 420)", "relist last ok {{ $value | humanizeDuration }} ago, limit 7m0s"}},
		{"inverted", "inverted", "", nil},
		{"indexed", "indexed", "", nil},
		{"no check", "base", "nocheck", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rules := writeRules(t, t.TempDir(), plegvet.Options{Dir: inexactTree(t, tt.healthy, tt.kubelet)})
			checkRules(t, tool, rules)
			b, err := os.ReadFile(rules)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			if tt.want == nil {
				if strings.Contains(text, "alert: PLEGUnhealthy") || strings.Contains(text, "alert: PLEGRelistStalled") || !strings.Contains(text, "# Not written: unhealthy/always: ") {
					t.Errorf("want no PLEGUnhealthy or PLEGRelistStalled rule, and why:\n%s", text)
				}
				return
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("rules file lacks %q:\n%s", w, text)
				}
			}
		})
	}
}
