// Package sarif writes plegvet's diagnostics as SARIF 2.1.0, the format
// code-scanning services read: one run, every check of the suite as a rule
// with its documentation and URL, results with regions, related locations
// and fixes. The log is built with go-sarif's model.
package sarif

import (
	"io"
	"sort"

	model "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/suite"
)

// SchemaURI is the SARIF 2.1.0 schema the log declares.
const SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

const (
	toolName = "plegvet"
	toolURI  = "https://github.com/plegvet/plegvet"
	srcRoot  = "SRCROOT" // paths are relative to the tree's root
)

// Write writes diagnostics as one SARIF log: every check as a rule (ID
// GROUP/CHECK, the check's doc bullet as help, its group's URL), each
// diagnostic as a result with its region, related locations and fixes.
// A diagnostic of a check the suite does not list gets a rule of its own
// named after its category.
func Write(w io.Writer, version string, ds []plegvet.Diagnostic) error {
	type rule struct{ id, name, text, uri string }
	var rules []rule
	for _, g := range suite.Groups() {
		for _, c := range g.Checks {
			rules = append(rules, rule{g.Name + "/" + string(c.Check), string(c.Check), c.Text, g.URL})
		}
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].id < rules[j].id })
	ids := map[string]string{} // category -> rule ID
	for _, d := range ds {
		if g, _, ok := suite.Rule(d.Category); ok {
			ids[d.Category] = g.Name + "/" + d.Category
		} else if _, seen := ids[d.Category]; !seen {
			ids[d.Category] = d.Category
			rules = append(rules, rule{d.Category, d.Category, d.Category, ""})
		}
	}

	run := model.NewRunWithInformationURI(toolName, toolURI)
	run.Tool.Driver.Version = &version
	index := map[string]int{}
	for i, r := range rules {
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
	for _, d := range ds {
		id := ids[d.Category]
		res := model.NewRuleResult(id).
			WithRuleIndex(index[id]).
			WithLevel(level(d.Category)).
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

// level is "note" for the informational gate-note, "warning" otherwise.
func level(category string) string {
	if category == string(pleg.GateNote) {
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
func region(p plegvet.Pos, end *plegvet.Pos) *model.Region {
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

func location(p plegvet.Pos, end *plegvet.Pos, msg string) *model.Location {
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
func fix(f plegvet.Fix) *model.Fix {
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
