package assemble

import (
	"slices"
	"testing"

	"github.com/plegvet/plegvet/runtimehang"
)

// A loop waits on its calls one after another, except those made in
// goroutines, which wait beside each other: counted once.
func TestSequentialCalls(t *testing.T) {
	reach := func(m string, concurrent bool) runtimehang.Reach {
		return runtimehang.Reach{Method: m, Concurrent: concurrent}
	}
	for _, tc := range []struct {
		name string
		in   []runtimehang.Reach
		want int
	}{
		{"one after another", []runtimehang.Reach{reach("A", false), reach("B", false), reach("A", false)}, 2},
		{"two in goroutines", []runtimehang.Reach{reach("A", false), reach("B", true), reach("C", true)}, 2},
		{"none", nil, 0},
	} {
		if n, ms := sequentialCalls(tc.in); n != tc.want || len(ms) != n {
			t.Errorf("%s: %d %v, want %d", tc.name, n, ms, tc.want)
		}
	}
	if _, ms := sequentialCalls([]runtimehang.Reach{reach("A", true)}); !slices.Contains(ms, "(calls in goroutines, counted once)") {
		t.Errorf("the goroutines are not named: %v", ms)
	}
}
