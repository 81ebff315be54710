// Package podcache keeps what the generic PLEG last saw of each pod. Its
// type is neither named Cache nor in a container package: the evented
// PLEG writes the pod cache when it writes what the generic PLEG writes.
package podcache

// Store maps a pod to its last seen state.
type Store struct{ state map[string]string }

// New returns an empty store.
func New() *Store { return &Store{state: map[string]string{}} }

// Set records a pod's state and reports whether it changed.
func (s *Store) Set(podID, state string) bool {
	changed := s.state[podID] != state
	s.state[podID] = state
	return changed
}
