// Command noopvet is a go/analysis vet tool whose one analyzer does
// nothing but declare a fact type: the floor of any analyzer that passes
// facts between packages under go vet -vettool (bench item 3). Such a
// tool runs on every package of the import graph, and x/tools'
// unitchecker type-checks each one from source, because importers read a
// package's types from the facts file it writes; plegvet's analyzers pay
// that too, and nothing here does more.
//
// Usage: go vet -vettool=$(which noopvet) PATTERN
package main

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/unitchecker"
)

// seen is a fact no package ever exports.
type seen struct{}

func (*seen) AFact()         {}
func (*seen) String() string { return "seen" }

var analyzer = &analysis.Analyzer{
	Name:      "noop",
	Doc:       "noop does nothing, with a fact type, so that go vet runs it on every package",
	Run:       func(*analysis.Pass) (any, error) { return nil, nil },
	FactTypes: []analysis.Fact{new(seen)},
}

func main() { unitchecker.Main(analyzer) }
