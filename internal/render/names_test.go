package render

import (
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
		if got := Closest(name, declared); !slices.Equal(got, want) {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}
