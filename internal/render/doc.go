// Package render puts plegvet's answers into words: the text tables of
// cmd/plegvet's subcommands, the report's summary, each value read as a
// cell, in prose or with its evidence, and the names a mistyped one may
// mean. It reads the answers (package answer) and nothing that loads or
// analyses; the root package calls it to fill an answer's prose fields.
package render

import (
	"io"

	"github.com/plegvet/plegvet/answer"
)

// Findings writes an answer's diagnostics under its text, as the caller
// names their checks.
type Findings func(w io.Writer, ds ...answer.Diagnostic)
