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

// Calls under X and under !(X) are alternatives: a scrape makes one
// side's (the stats provider's "if p.useCRIPodSandboxStats { return
// strictly() }; return partially()"), so the side adding more counts.
func TestSequentialCallsBranches(t *testing.T) {
	under := func(m string, when ...string) runtimehang.Reach {
		r := runtimehang.Reach{Method: m}
		for _, w := range when {
			r.Steps = append(r.Steps, runtimehang.Step{Func: "f", When: w})
		}
		r.Steps = append(r.Steps, runtimehang.Step{Func: m})
		return r
	}
	for _, tc := range []struct {
		name string
		in   []runtimehang.Reach
		want int
	}{
		{"one side each", []runtimehang.Reach{under("ListPodSandbox"), under("ListContainers"), under("ListPodSandboxStats", "p.cri"), under("ListContainerStats", "!(p.cri)")}, 3},
		{"the larger side", []runtimehang.Reach{under("A"), under("B", "x"), under("C", "!(x)"), under("D", "!(x)")}, 3},
		{"a side already counted adds nothing", []runtimehang.Reach{under("A"), under("A", "x"), under("B", "!(x)")}, 2},
		{"one-sided branch counts", []runtimehang.Reach{under("A"), under("B", "x")}, 2},
		{"two unrelated branches both count", []runtimehang.Reach{under("B", "x"), under("C", "y")}, 2},
		{"nested: only the innermost pairs (the outer sides both count)", []runtimehang.Reach{under("B", "x", "y"), under("C", "x", "!(y)"), under("D", "!(x)")}, 2},
	} {
		if n, ms := sequentialCalls(tc.in); n != tc.want || len(ms) != n {
			t.Errorf("%s: %d %v, want %d", tc.name, n, ms, tc.want)
		}
	}
	_, ms := sequentialCalls([]runtimehang.Reach{under("B", "x"), under("C", "!(x)")})
	if len(ms) != 1 || ms[0] != "B (when x; else C)" {
		t.Errorf("the alternative is not named: %v", ms)
	}
}
