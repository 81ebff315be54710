package analysisrun

// Applying suggested fixes (the driver's -fix and -diff).
//
// The algorithm, in full:
//
//  1. Collect. Of every diagnostic, take its first suggested fix only (as
//     go vet -fix does; the others are alternatives to it) and turn its
//     TextEdits into byte ranges of the files they edit. Each edited file
//     is read once; a file whose size is no longer the one the analysis
//     saw has changed since, and nothing is written.
//  2. Order. The fixes are taken in the order of their diagnostics'
//     positions (file name, offset), then analyzer name, then the order
//     the analyzer reported them: an order that does not depend on how
//     the packages were loaded, so that which of two conflicting fixes
//     wins is the same whichever driver ran.
//  3. Accept. A fix is accepted as a whole or not at all. Each of its
//     edits is compared with the edits already accepted in the same file:
//     an identical edit (same range, same new text; two diagnostics
//     suggesting the same change) counts once; an edit that overlaps one
//     (shares a byte with it, or inserts at the same offset other text)
//     makes the whole fix skipped, and it is reported as a SkippedFix.
//  4. Splice. In each file the accepted edits, sorted by position (an
//     insertion before a replacement that starts where it inserts), are
//     spliced into the file's bytes.
//  5. Format. A .go file is then run through go/format.Source. When that
//     fails (a fix left something that does not parse), the unformatted
//     result is kept and reported in FixResult.Unformatted.
//  6. Output. Either each changed file is written, or a unified diff of
//     each (github.com/rogpeppe/go-internal/diff), in file name order, is
//     printed instead.
//
// Imports a fix leaves unused are not removed: plegvet's fixes change
// literals and never remove the use of an import, so there is nothing to
// clean up (and format.Source, which sorts imports, does not remove any).

import (
	"bytes"
	"cmp"
	"fmt"
	"go/format"
	"go/token"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"golang.org/x/tools/go/analysis"
)

// FixAction is one analyzer's diagnostics on one package.
type FixAction struct {
	Analyzer    string         // the analyzer's name, for reports
	FileSet     *token.FileSet // where the diagnostics' positions are
	Diagnostics []analysis.Diagnostic
}

// FixOptions say what ApplyFixes reads and where the fixed files go.
type FixOptions struct {
	// ReadFile reads a file the fixes edit; nil is os.ReadFile.
	ReadFile func(name string) ([]byte, error)
	// WriteFile writes a fixed file; nil is os.WriteFile. Unused when
	// Diff is set.
	WriteFile func(name string, content []byte) error
	// Diff, when not nil, receives a unified diff of every file the fixes
	// change, instead of the files being written (-diff). The diff's file
	// names are "a/NAME" and "b/NAME", as git writes them, NAME being the
	// file's path relative to DiffDir (with forward slashes) when it is
	// inside DiffDir, and the file's own name otherwise.
	Diff    io.Writer
	DiffDir string
}

// FixResult is what ApplyFixes did.
type FixResult struct {
	// Fixes is the number of fixes considered (one per diagnostic with
	// fixes).
	Fixes int
	// Applied holds the fixes applied (with Diff: that would be); not
	// those to a file that could not be written.
	Applied map[*analysis.SuggestedFix]bool
	// Skipped are the fixes not applied, in the order they were taken.
	Skipped []SkippedFix
	// Files are the files changed (with Diff: that would be), sorted.
	Files []string
	// Unformatted are the changed .go files that go/format could not
	// format, kept as the edits left them.
	Unformatted []UnformattedFile
}

// SkippedFix is a fix ApplyFixes did not apply.
type SkippedFix struct {
	Fix      *analysis.SuggestedFix
	Pos      token.Position // its diagnostic's position
	Analyzer string
	Reason   string // "its edits conflict with another fix", ...
}

// Why fixes are skipped.
const (
	ReasonConflict = "its edits conflict with another fix"
	ReasonOverlap  = "its edits overlap each other"
	ReasonInvalid  = "one of its edits is outside the file it edits"
)

// String is the report line: "FILE:LINE:COL: fix of ANALYZER skipped:
// REASON".
func (s SkippedFix) String() string {
	return fmt.Sprintf("%s: fix of %s skipped: %s", s.Pos, s.Analyzer, s.Reason)
}

// UnformattedFile is a fixed file go/format.Source rejected.
type UnformattedFile struct {
	File string
	Err  error
}

// edit replaces the bytes [start, end) of a file with text.
type edit struct {
	start, end int
	text       string
}

// overlaps is true when a and b cannot both be applied: they share a
// byte, or both insert at the same offset (which first is unknown).
// Identical edits are handled before.
func (a edit) overlaps(b edit) bool {
	if a.start == a.end && b.start == b.end {
		return a.start == b.start
	}
	return a.start < b.end && b.start < a.end
}

// candidate is one fix, its edits grouped by file.
type candidate struct {
	fix      *analysis.SuggestedFix
	pos      token.Position
	analyzer string
	edits    map[string][]edit
	invalid  bool
}

// ApplyFixes applies the first suggested fix of every diagnostic of the
// actions, as the comment at the top of this file describes, and writes
// the changed files (or, with opts.Diff, prints their diff). The error is
// about reading or writing files; the fixes it could not apply are in the
// result's Skipped, whatever the error.
func ApplyFixes(actions []FixAction, opts FixOptions) (*FixResult, error) {
	readFile := opts.ReadFile
	if readFile == nil {
		readFile = os.ReadFile
	}
	res := &FixResult{Applied: map[*analysis.SuggestedFix]bool{}}

	// 1. Collect.
	content := map[string][]byte{}
	var cands []*candidate
	for _, act := range actions {
		for i := range act.Diagnostics {
			d := &act.Diagnostics[i]
			if len(d.SuggestedFixes) == 0 {
				continue
			}
			c := &candidate{
				fix:      &d.SuggestedFixes[0],
				pos:      act.FileSet.Position(d.Pos),
				analyzer: act.Analyzer,
				edits:    map[string][]edit{},
			}
			for _, te := range c.fix.TextEdits {
				tf := act.FileSet.File(te.Pos)
				end := te.End
				if !end.IsValid() {
					end = te.Pos // go/analysis: no End is an insertion
				}
				if tf == nil || act.FileSet.File(end) != tf || end < te.Pos {
					c.invalid = true
					break
				}
				name := tf.Name()
				if _, ok := content[name]; !ok {
					data, err := readFile(name)
					if err != nil {
						return res, err
					}
					if len(data) != tf.Size() {
						return res, fmt.Errorf("%s has changed since it was analysed (%d bytes then, %d now); no fix applied", name, tf.Size(), len(data))
					}
					content[name] = data
				}
				c.edits[name] = append(c.edits[name], edit{tf.Offset(te.Pos), tf.Offset(end), string(te.NewText)})
			}
			cands = append(cands, c)
		}
	}
	res.Fixes = len(cands)

	// 2. Order.
	slices.SortStableFunc(cands, func(a, b *candidate) int {
		return cmp.Or(
			strings.Compare(a.pos.Filename, b.pos.Filename),
			cmp.Compare(a.pos.Offset, b.pos.Offset),
			strings.Compare(a.analyzer, b.analyzer))
	})

	// 3. Accept.
	accepted := map[string][]edit{}
	var applied []*candidate
	for _, c := range cands {
		reason := ""
		if c.invalid {
			reason = ReasonInvalid
		}
		add := map[string][]edit{} // the fix's edits not already accepted
	check:
		for _, name := range slices.Sorted(maps.Keys(c.edits)) {
			if reason != "" {
				break
			}
			for _, e := range c.edits[name] {
				if slices.Contains(add[name], e) {
					continue // the same edit twice in one fix
				}
				for _, o := range add[name] {
					if e.overlaps(o) {
						reason = ReasonOverlap
						break check
					}
				}
				if slices.Contains(accepted[name], e) {
					continue // another fix made the same edit
				}
				for _, o := range accepted[name] {
					if e.overlaps(o) {
						reason = ReasonConflict
						break check
					}
				}
				add[name] = append(add[name], e)
			}
		}
		if reason != "" {
			res.Skipped = append(res.Skipped, SkippedFix{Fix: c.fix, Pos: c.pos, Analyzer: c.analyzer, Reason: reason})
			continue
		}
		res.Applied[c.fix] = true
		applied = append(applied, c)
		for name, edits := range add {
			accepted[name] = append(accepted[name], edits...)
		}
	}

	// 4-6. Splice, format, write or diff, file by file.
	var failed []string
	for _, name := range slices.Sorted(maps.Keys(accepted)) {
		before := content[name]
		after := splice(before, accepted[name])
		if strings.HasSuffix(name, ".go") {
			if formatted, err := format.Source(after); err != nil {
				res.Unformatted = append(res.Unformatted, UnformattedFile{name, err})
			} else {
				after = formatted
			}
		}
		if bytes.Equal(before, after) {
			continue // the edits changed nothing
		}
		res.Files = append(res.Files, name)
		if opts.Diff != nil {
			n := diffName(opts.DiffDir, name)
			if _, err := opts.Diff.Write(diff.Diff("a/"+n, before, "b/"+n, after)); err != nil {
				return res, err
			}
			continue
		}
		write := opts.WriteFile
		if write == nil {
			write = func(name string, data []byte) error { return os.WriteFile(name, data, 0o644) }
		}
		if err := write(name, after); err != nil {
			failed = append(failed, err.Error())
			for _, c := range applied {
				if c.edits[name] != nil {
					delete(res.Applied, c.fix) // not applied after all
				}
			}
		}
	}
	if len(failed) > 0 {
		return res, fmt.Errorf("writing the fixed files: %s", strings.Join(failed, "; "))
	}
	return res, nil
}

// splice applies edits, which do not overlap, to src.
func splice(src []byte, edits []edit) []byte {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b edit) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.end, b.end))
	})
	var out bytes.Buffer
	at := 0
	for _, e := range edits {
		out.Write(src[at:e.start])
		out.WriteString(e.text)
		at = e.end
	}
	out.Write(src[at:])
	return out.Bytes()
}

// diffName is name relative to dir when it is inside dir, with forward
// slashes; name otherwise.
func diffName(dir, name string) string {
	if dir != "" {
		if rel, err := filepath.Rel(dir, name); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(name)
}
