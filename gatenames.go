package plegvet

import (
	"fmt"
	"strings"
)

// UnknownGateError is a gate name that no release read declares, with
// the declared names it is likely a misspelling of.
type UnknownGateError struct {
	Name string // as asked
	// Where is the tree read ("k8s.io/kubernetes@v1.36.1: the tree"), or
	// Releases the releases a history read.
	Where    string
	Releases []string
	// DidYouMean are the declared names closest to Name: one differing
	// only in case, else those a few edits away (closest first).
	DidYouMean []string
}

func (e *UnknownGateError) Error() string {
	msg := fmt.Sprintf("%s declares no feature gate %q", e.Where, e.Name)
	if n := len(e.Releases); n > 1 {
		msg = fmt.Sprintf("none of the %d releases read (%s to %s) declares a feature gate %q", n, e.Releases[0], e.Releases[n-1], e.Name)
	} else if n == 1 {
		msg = fmt.Sprintf("%s declares no feature gate %q", e.Releases[0], e.Name)
	}
	switch len(e.DidYouMean) {
	case 0:
		return msg
	case 1:
		return fmt.Sprintf("%s; did you mean %s?", msg, e.DidYouMean[0])
	default:
		return fmt.Sprintf("%s; did you mean one of %s?", msg, strings.Join(e.DidYouMean, ", "))
	}
}

// declaredNames are the names a gate can be asked for by: its name and
// its constant's identifier.
func declaredNames(gates []Gate) []string {
	names := make([]string, 0, 2*len(gates))
	for _, g := range gates {
		names = append(names, g.Name)
		if g.Const != "" && g.Const != g.Name {
			names = append(names, g.Const)
		}
	}
	return names
}
