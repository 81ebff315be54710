package main

import (
	"io"
	"os"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
	"github.com/plegvet/plegvet/srcpos"
)

// output is how a subcommand prints its answer: as JSON, or as text whose
// positions read as -positions says (the checkout's names unless url or
// module is asked for), each a hyperlink on a terminal that shows them.
type output struct {
	json       bool
	positions  plegvet.Positions
	hyperlinks bool
	// document says that the text is a file for a program (a rules file):
	// it holds no escape sequence, and no line of it is wrapped.
	document bool
}

// output is the form the flags ask for, printed to stdout.
func (s *sourceFlags) output(stdout io.Writer) output {
	return output{json: s.json, positions: s.positions, hyperlinks: wantsHyperlinks(stdout)}
}

// wantsHyperlinks says whether text printed to w may hold OSC 8
// hyperlinks: on a terminal that is not a dumb one, unless
// FORCE_HYPERLINK says otherwise (1 or 0, the convention other tools
// read). Piped output never holds escape sequences of its own.
func wantsHyperlinks(w io.Writer) bool {
	if v, ok := os.LookupEnv("FORCE_HYPERLINK"); ok && v != "" {
		return v != "0"
	}
	term := os.Getenv("TERM")
	return isTerminal(w) && term != "" && term != "dumb"
}

// print prints result, an answer about src (nil for answers about several
// sources, such as a timeline's rows), as JSON or as text.
func (o output) print(w io.Writer, result any, text func(io.Writer) error, src *answer.Source) error {
	if o.json {
		return writeJSON(w, result)
	}
	return o.text(w, result, text, src)
}

// text is writeText for an answer v about src: its file names printed as
// -positions says, escaped (\xff) before the tables are laid out, and on
// a terminal each position a link to the file. Answers about several
// sources link nothing: a name stands for a file of each.
func (o output) text(w io.Writer, v any, text func(io.Writer) error, src *answer.Source) error {
	printed := map[string]string{} // a printed name -> the file's name
	form := func(name string, at *srcpos.Pos) string {
		shown := name
		switch {
		case o.positions == plegvet.PositionsURL && at != nil && at.URL != "":
			shown, _, _ = strings.Cut(at.URL, "#") // srcpos prints URL#LLINE
		case o.positions == plegvet.PositionsModule && at != nil && at.Path != "":
			shown = at.Path
		}
		shown = escapeControls(shown, false)
		printed[shown] = name
		return shown
	}
	if !o.document {
		text = fitted(w, text)
	}
	return withNames(v, form, func() error {
		if src == nil || o.document {
			return writeText(w, text)
		}
		link := plegvet.FileLink(*src)
		out, lw := w, (*render.LinkWriter)(nil)
		if o.hyperlinks && (o.positions == "" || o.positions == plegvet.PositionsRelative) {
			lw = render.Hyperlinks(w, printed, link)
			out = lw
		}
		if err := writeText(out, text); err != nil {
			return err
		}
		if lw != nil {
			return lw.Flush()
		}
		return nil
	})
}

// fitted is text fitted to the width of w (textWidth): render.Fit breaks
// the lines longer, and renderers wrap their cells and paragraphs to it.
func fitted(w io.Writer, text func(io.Writer) error) func(io.Writer) error {
	width := textWidth(w)
	return func(out io.Writer) error {
		f := render.Fit(out, width)
		if err := text(f); err != nil {
			return err
		}
		return f.Flush()
	}
}
