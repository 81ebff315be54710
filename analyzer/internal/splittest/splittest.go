// Package splittest runs analysistest on fixtures whose "// want" comments
// hold the expectations of two analyzers: the facts of a facts-only
// analyzer (gatefacts) beside the diagnostics of the one that checks
// (featuregate). analysistest matches only the analyzer under test, so
// each run leaves the other kind of expectation to the other run: run
// both, and every expectation is checked once.
package splittest

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// Facts is t for the run of the facts analyzer: diagnostic expectations
// are the checking analyzer's.
func Facts(t *testing.T) analysistest.Testing {
	return ignoring{t, ": no diagnostic was reported matching "}
}

// Diagnostics is t for the run of the checking analyzer: fact
// expectations are the facts analyzer's.
func Diagnostics(t *testing.T) analysistest.Testing {
	return ignoring{t, ": no fact was reported matching "}
}

type ignoring struct {
	t    *testing.T
	skip string // analysistest's complaint of an unmatched expectation of the other kind
}

func (i ignoring) Errorf(format string, args ...any) {
	i.t.Helper()
	if msg := fmt.Sprintf(format, args...); !strings.Contains(msg, i.skip) {
		i.t.Error(msg)
	}
}
