package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestSkipIrrelevantVet(t *testing.T) {
	for _, tc := range []struct {
		name       string
		importPath string
		imports    []string
		skip       bool
	}{
		{"leaf package", "k8s.io/kubernetes/pkg/util/hash", []string{"fmt", "hash"}, true},
		{"the pleg package", "k8s.io/kubernetes/pkg/kubelet/pleg", []string{"time"}, false},
		{"the kubelet, which imports pleg", "k8s.io/kubernetes/pkg/kubelet", []string{"k8s.io/kubernetes/pkg/kubelet/pleg"}, false},
		{"a user of a gate", "k8s.io/kubernetes/pkg/proxy", []string{"k8s.io/kubernetes/pkg/features"}, false},
		{"a declarer of gates", "k8s.io/apiserver/pkg/features", []string{"k8s.io/component-base/featuregate"}, false},
		{"a vendored API", "example.com/fork/x", []string{"example.com/fork/vendor/k8s.io/component-base/featuregate"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := map[string]any{"ImportPath": tc.importPath, "ImportMap": map[string]string{}, "VetxOutput": filepath.Join(dir, "vetx")}
			for _, imp := range tc.imports {
				cfg["ImportMap"].(map[string]string)[imp] = imp
			}
			data, _ := json.Marshal(cfg)
			file := filepath.Join(dir, "vet.cfg")
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if got := skipIrrelevantVet(file); got != tc.skip {
				t.Fatalf("skip = %t, want %t", got, tc.skip)
			}
			st, err := os.Stat(filepath.Join(dir, "vetx"))
			if tc.skip && (err != nil || st.Size() != 0) {
				t.Errorf("skipped without an empty facts file: %v", err)
			}
			if !tc.skip && err == nil {
				t.Error("a package that matters got an empty facts file")
			}
		})
	}
}
