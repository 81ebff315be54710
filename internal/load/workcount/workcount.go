// Package workcount counts the work a load and a driver run do — files
// parsed and the function bodies among them, packages type-checked and
// their declarations, syntax nodes walked — so that tests can
// assert how the work grows with the input without timing anything: a
// walk that goes quadratic shows as a count that does, on any machine.
//
// The counts are process-wide and only ever grow; the code that does the
// work adds to them (one atomic add per file, per package, per walk, not
// per node), and only tests read them (Read, then Since). A test that
// reads them must not run beside another load in the same process (no
// t.Parallel).
package workcount

import "sync/atomic"

var filesParsed, bodiesParsed, packagesChecked, declsChecked, nodesWalked atomic.Int64

// FileParsed counts one Go file parsed from source (a file a cache
// answers is not parsed, and not counted).
func FileParsed() { filesParsed.Add(1) }

// BodiesParsed counts n function bodies parsed with statements in them
// (a body blanked before parsing has none).
func BodiesParsed(n int) { bodiesParsed.Add(int64(n)) }

// PackageChecked counts one package type-checked (go/types' Check run
// over its files) and the n top-level declarations it was given (those
// left by a cut).
func PackageChecked(n int) {
	packagesChecked.Add(1)
	declsChecked.Add(int64(n))
}

// NodesWalked counts n syntax nodes visited by a walk of the driver's
// own (the type errors' positions looked up in the syntax).
func NodesWalked(n int) { nodesWalked.Add(int64(n)) }

// Counts are the work done so far, or between two reads.
type Counts struct {
	FilesParsed     int64
	BodiesParsed    int64
	PackagesChecked int64
	DeclsChecked    int64
	NodesWalked     int64
}

// Read is the work done so far in this process.
func Read() Counts {
	return Counts{FilesParsed: filesParsed.Load(), BodiesParsed: bodiesParsed.Load(), PackagesChecked: packagesChecked.Load(), DeclsChecked: declsChecked.Load(), NodesWalked: nodesWalked.Load()}
}

// Since is the work done since an earlier Read.
func (c Counts) Since(before Counts) Counts {
	return Counts{
		FilesParsed:     c.FilesParsed - before.FilesParsed,
		BodiesParsed:    c.BodiesParsed - before.BodiesParsed,
		PackagesChecked: c.PackagesChecked - before.PackagesChecked,
		DeclsChecked:    c.DeclsChecked - before.DeclsChecked,
		NodesWalked:     c.NodesWalked - before.NodesWalked,
	}
}
