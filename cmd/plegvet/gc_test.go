package main

import (
	"strings"
	"testing"
)

func TestLoadsOneTree(t *testing.T) {
	for _, tc := range []struct {
		args string
		want bool
	}{
		{"report -k8s v1.36.1", true},
		{"report -C ../k8s", true},
		{"gates -k8s v1.25.0..v1.37.2 EventedPLEG", false},
		{"report -k8s=v1.30.14,v1.36.1", false},
		{"gates EventedPLEG --k8s v1.26.0,v1.27.0", false},
		{"./pkg/...", false},
		{"lsp", false},
		{"-json ./pkg/...", false},
		{"", false},
	} {
		if got := loadsOneTree(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("loadsOneTree(%q) = %t, want %t", tc.args, got, tc.want)
		}
	}
}
