package plegvet

import (
	"errors"
	"slices"
	"testing"
)

func TestClosestNames(t *testing.T) {
	declared := []string{"EventedPLEG", "EventedPLEGX", "PodReadyToStartContainersCondition", "CPUManager", "MemoryManager", "ContainerCheckpoint", "GracefulNodeShutdown"}
	for name, want := range map[string][]string{
		"eventedpleg":       {"EventedPLEG"},                 // case only: that one, not EventedPLEGX
		"EventedPLG":        {"EventedPLEG", "EventedPLEGX"}, // one edit, then two
		"cpumanagr":         {"CPUManager"},
		"MemoryManger":      {"MemoryManager"},
		"Foo":               nil,
		"Manager":           nil, // a part is not a misspelling
		"GracefullShutdown": {"GracefulNodeShutdown"},
		"NodeShutdown":      nil, // too far
		"":                  nil,
	} {
		if got := closestNames(name, declared); !slices.Equal(got, want) {
			t.Errorf("closestNames(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestUnknownGateErrorText(t *testing.T) {
	for _, c := range []struct {
		err  *UnknownGateError
		want string
	}{
		{&UnknownGateError{Name: "X", Where: "tree: the tree"}, `tree: the tree declares no feature gate "X"`},
		{&UnknownGateError{Name: "X", Releases: []string{"v1.30.0"}, DidYouMean: []string{"Y"}}, `v1.30.0 declares no feature gate "X"; did you mean Y?`},
		{&UnknownGateError{Name: "X", Releases: []string{"v1.30.0", "v1.31.0", "v1.32.0"}, DidYouMean: []string{"Y", "Z"}},
			`none of the 3 releases read (v1.30.0 to v1.32.0) declares a feature gate "X"; did you mean one of Y, Z?`},
	} {
		var err error = c.err
		var target *UnknownGateError
		if got := err.Error(); got != c.want || !errors.As(err, &target) {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}
