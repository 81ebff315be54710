// Package sarif writes plegvet's diagnostics as SARIF 2.1.0, the format
// code-scanning services read: one run, every check as a rule with its
// documentation and URL, results with regions, related locations and
// fixes. The log is built with go-sarif's model.
//
// The package is plumbing: it takes the rules (the suite's) and the
// results as plain data from its callers and imports no analyzer.
package sarif

import (
	"io"
	"sort"

	model "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/plegvet/plegvet/internal/check"
)

// SchemaURI is the SARIF 2.1.0 schema the log declares.
const SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

const (
	toolName = "plegvet"
	toolURI  = "https://github.com/plegvet/plegvet"
	srcRoot  = "SRCROOT" // paths are relative to the tree's root
)

// Pos is a position in the tree: File relative to its root, with /; Line
// 0 when unknown.
type Pos struct {
	File         string
	Line, Column int
}

// Result is one finding: Check is its category, the name of its rule.
type Result struct {
	Check   string
	Message string
	Pos     Pos
	End     *Pos
	Related []Related
	Fixes   []Fix
}

// Related is a position that explains a result.
type Related struct {
	Message string
	Pos     Pos
}

// Fix is a suggested fix: edits to apply together.
type Fix struct {
	Message string
	Edits   []Edit
}

// Edit replaces the text from Pos to End with NewText.
type Edit struct {
	Pos, End Pos
	NewText  string
}

// Write writes results as one SARIF log: every rule (its doc entry's text
// as help, its URL, its severity as the level of its results), each result
// with its region, related locations and fixes. A result's rule is the
// first of rules named after its check; a check no rule names gets a rule
// of its own, named after it.
func Write(w io.Writer, version string, rules []check.Rule, results []Result) error {
	type rule struct {
		id, name, text, uri string
		severity            check.Severity
	}
	var rs []rule
	ids := map[string]string{} // check -> rule ID
	for _, r := range rules {
		rs = append(rs, rule{r.ID, string(r.Check), r.Text, r.URL, r.Severity})
		if _, seen := ids[string(r.Check)]; !seen {
			ids[string(r.Check)] = r.ID
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].id < rs[j].id })
	for _, res := range results {
		if _, seen := ids[res.Check]; !seen {
			ids[res.Check] = res.Check
			rs = append(rs, rule{res.Check, res.Check, res.Check, "", check.Warning})
		}
	}

	run := model.NewRunWithInformationURI(toolName, toolURI)
	run.Tool.Driver.Version = &version
	index := map[string]int{}
	for i, r := range rs {
		index[r.id] = i
		rd := model.NewRule(r.id).
			WithName(r.name).
			WithShortDescription(text(firstSentence(r.text))).
			WithFullDescription(text(r.text)).
			WithHelp(text(r.text))
		if r.uri != "" {
			rd.WithHelpURI(r.uri)
		}
		run.Tool.Driver.AddRule(rd)
	}
	for _, d := range results {
		id := ids[d.Check]
		res := model.NewRuleResult(id).
			WithRuleIndex(index[id]).
			WithLevel(level(rs[index[id]].severity)).
			WithMessage(model.NewTextMessage(d.Message)).
			AddLocation(location(d.Pos, d.End, ""))
		for i, r := range d.Related {
			res.AddRelatedLocation(location(r.Pos, nil, r.Message).WithID(i + 1))
		}
		for _, f := range d.Fixes {
			res.AddFixe(fix(f))
		}
		run.AddResult(res)
	}
	log := model.NewReport()
	log.Schema = SchemaURI
	log.AddRun(run)
	if err := log.PrettyWrite(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// level is a severity's SARIF level: a warning unless the rule says note.
func level(s check.Severity) string {
	if s == check.Note {
		return model.LevelNote
	}
	return model.LevelWarning
}

func text(s string) *model.MultiformatMessageString {
	return model.NewMultiformatMessageString().WithText(s)
}

func artifact(file string) *model.ArtifactLocation {
	return model.NewArtifactLocation().WithURI(file).WithURIBaseID(srcRoot)
}

// region is nil for an unknown position; without a known end, it ends
// where it starts.
func region(p Pos, end *Pos) *model.Region {
	if p.Line <= 0 {
		return nil
	}
	r := model.NewRegion().WithStartLine(p.Line)
	if p.Column > 0 {
		r.WithStartColumn(p.Column)
	}
	endLine, endCol := p.Line, p.Column
	if end != nil && end.File == p.File {
		endLine, endCol = end.Line, end.Column
	}
	r.WithEndLine(endLine)
	if endCol > 0 {
		r.WithEndColumn(endCol)
	}
	return r
}

func location(p Pos, end *Pos, msg string) *model.Location {
	pl := model.NewPhysicalLocation().WithArtifactLocation(artifact(p.File))
	if r := region(p, end); r != nil {
		pl.WithRegion(r)
	}
	l := model.NewLocationWithPhysicalLocation(pl)
	if msg != "" {
		l.WithMessage(model.NewTextMessage(msg))
	}
	return l
}

// fix groups a fix's edits by file, in the order the files first appear.
func fix(f Fix) *model.Fix {
	out := model.NewFix().WithDescription(model.NewTextMessage(f.Message))
	byFile := map[string]*model.ArtifactChange{}
	for _, e := range f.Edits {
		ch, ok := byFile[e.Pos.File]
		if !ok {
			ch = model.NewArtifactChange().WithArtifactLocation(artifact(e.Pos.File))
			byFile[e.Pos.File] = ch
			out.AddArtifactChange(ch)
		}
		end := e.End
		if r := region(e.Pos, &end); r != nil {
			ch.AddReplacement(model.NewReplacement().WithDeletedRegion(r).WithInsertedContent(model.NewArtifactContent().WithText(e.NewText)))
		}
	}
	return out
}

func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}
