package plegvet

import (
	"go/token"
	"io"
	"sort"

	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/sarif"
	"github.com/plegvet/plegvet/internal/tree"
)

// StreamChecks are the checks that join the CRI api.proto with the Go
// code (they run in the library: no analysis pass can read a .proto).
var StreamChecks = map[string]string{
	"rpc-missing":       "the evented PLEG consumes GetContainerEvents, but the CRI api.proto declares no such rpc.",
	"rpc-not-streaming": "the evented PLEG consumes GetContainerEvents as a stream, but the rpc (or the Go method it calls) is unary.",
}

// rule is a check and where it is documented.
type rule struct {
	analyzer, name, text, uri string
}

// rules lists every check plegvet reports, by category.
func rules() map[string]rule {
	out := map[string]rule{}
	add := func(analyzer, uri string, checks map[string]string) {
		for name, text := range checks {
			out[name] = rule{analyzer, name, text, uri}
		}
	}
	add(featuregate.Analyzer.Name, featuregate.Analyzer.URL, featuregate.Checks())
	add(pleg.Analyzer.Name, pleg.Analyzer.URL, pleg.Checks())
	add("rpc", "https://pkg.go.dev/github.com/plegvet/plegvet#EventStream", StreamChecks)
	return out
}

// WriteSARIF writes diagnostics as a SARIF 2.1.0 log for code scanning:
// every check as a rule (with its documentation and URL), each diagnostic
// as a result with its region, related locations and fixes. Paths are
// relative to the source root (SRCROOT), as in every plegvet output.
func WriteSARIF(w io.Writer, version string, ds []Diagnostic) error {
	all := rules()
	var rs []sarif.Rule
	for _, r := range all {
		rs = append(rs, sarif.Rule{ID: r.analyzer + "/" + r.name, Name: r.name, Summary: firstSentence(r.text), Help: r.text, HelpURI: r.uri})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	var results []sarif.Result
	for _, d := range ds {
		id := d.Category
		if r, ok := all[d.Category]; ok {
			id = r.analyzer + "/" + r.name
		} else {
			rs = append(rs, sarif.Rule{ID: id, Name: id, Summary: id, Help: id})
			all[id] = rule{name: id}
		}
		level := "warning"
		if d.Category == "gate-note" {
			level = "note"
		}
		res := sarif.Result{RuleID: id, Message: d.Message, Level: level, Location: sarifLoc(d.Pos, d.End, "")}
		for _, r := range d.Related {
			res.Related = append(res.Related, sarifLoc(r.Pos, nil, r.Message))
		}
		for _, f := range d.Fixes {
			fix := sarif.Fix{Description: f.Message}
			for _, e := range f.Edits {
				end := e.End
				fix.Edits = append(fix.Edits, sarif.Edit{Location: sarifLoc(e.Pos, &end, ""), Text: e.NewText})
			}
			res.Fixes = append(res.Fixes, fix)
		}
		results = append(results, res)
	}
	return sarif.Write(w, "plegvet", version, "https://github.com/plegvet/plegvet", rs, results)
}

func sarifLoc(p Pos, end *Pos, msg string) sarif.Location {
	l := sarif.Location{File: p.File, StartLine: p.Line, StartCol: p.Column, Message: msg}
	if end != nil && end.File == p.File {
		l.EndLine, l.EndCol = end.Line, end.Column
	}
	return l
}

func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}

// Diagnostics converts go/analysis diagnostics to plegvet's, with paths
// relative to root (as a driver run in a checkout prints them).
func Diagnostics(fset *token.FileSet, root string, ds []analysis.Diagnostic) []Diagnostic {
	return positioner{fset: fset, tree: &tree.Tree{Dir: root}}.diagnostics(ds)
}
