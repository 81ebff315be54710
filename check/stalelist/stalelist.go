package stalelist

import (
	"fmt"
	"path"
	"strings"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/analysis/check"
)

// ListNames are the gates a feature list names, in its order.
func ListNames(list []answer.Gate) []string {
	names := make([]string, len(list))
	for i, g := range list {
		names[i] = g.Name
	}
	return names
}

// listed is a spec as a feature list holds it (stage, default, lock,
// version and minimum compatibility version), in a diagnostic's words:
// two specs the list holds alike read alike.
func listed(s answer.Spec) string {
	out := fmt.Sprintf("%s/%t", s.PreRelease, s.Default)
	if s.LockToDefault {
		out += " locked"
	}
	out += " at " + s.Version
	if s.MinCompatibilityVersion != "" {
		out += " (min compatibility " + s.MinCompatibilityVersion + ")"
	}
	return out
}

// staleDiag makes diagnostics of a check, each message ending with the
// command that rewrites the list when there is one.
func staleDiag(c check.Check, rewrite string) func(at answer.Pos, format string, args ...any) answer.Diagnostic {
	tail := ""
	if rewrite != "" {
		tail = "; rewrite the list with " + rewrite
	}
	return func(at answer.Pos, format string, args ...any) answer.Diagnostic {
		return answer.Diagnostic{Category: string(c), Message: fmt.Sprintf(format, args...) + tail, Pos: at, Related: []answer.Related{}}
	}
}

// List compares the tree's FeatureList with a committed list
// (featurelist.Parse's), named as the list names gates (NamingOf), and
// returns each difference as a stale-list diagnostic at the gate's spec
// in the code: a spec that differs, a spec or a gate the list lacks, a
// gate or a spec the list has and the code does not (at the list's line,
// when the code has no position for it). rewrite, when set, is the
// command that rewrites the list; each message ends with it.
func List(r *answer.GatesReport, file string, list []answer.Gate, rewrite string) []answer.Diagnostic {
	byName := map[string]*answer.Gate{}
	for i := range list {
		byName[list[i].Name] = &list[i]
	}
	diag := staleDiag(StaleList, rewrite)
	short := func(p answer.Pos) string { return fmt.Sprintf("%s:%d", path.Base(p.File), p.Line) }
	var out []answer.Diagnostic
	inCode := map[string]bool{}
	for _, e := range r.FeatureListNamed(r.NamingOf(ListNames(list))) {
		inCode[e.Name] = true
		g := e.Gate
		at := g.Entry
		lg := byName[e.Name]
		if lg == nil {
			out = append(out, diag(at, "the list %s lacks gate %s, which the code declares at %s", file, e.Name, short(at)))
			continue
		}
		for i := 0; i < max(len(g.Specs), len(lg.Specs)); i++ {
			switch {
			case i >= len(lg.Specs):
				s := g.Specs[i]
				out = append(out, diag(s.Pos, "the list %s lacks the spec of %s %s, which the code has at %s", file, e.Name, listed(s), short(s.Pos)))
			case i >= len(g.Specs):
				p := at
				if len(g.Specs) > 0 {
					p = g.Specs[len(g.Specs)-1].Pos
				}
				out = append(out, diag(p, "%s:%d: list says %s %s, the code has no such spec (its specs end at %s)", file, lg.Specs[i].Pos.Line, e.Name, listed(lg.Specs[i]), short(p)))
			default:
				s, ls := g.Specs[i], lg.Specs[i]
				if code := listed(s); code != listed(ls) {
					out = append(out, diag(s.Pos, "%s:%d: list says %s %s, code says %s (%s)", file, ls.Pos.Line, e.Name, listed(ls), code, short(s.Pos)))
				}
			}
		}
	}
	refused := map[string]string{}
	if r.Lifecycle != nil {
		for _, rm := range r.Lifecycle.Removals(list, func(name string) bool { return inCode[name] }) {
			refused[rm.Gate] = rm.Why
		}
	}
	for _, lg := range list {
		if inCode[lg.Name] {
			continue
		}
		at := answer.Pos{File: file, Line: lg.Entry.Line, Column: 1}
		if why, ok := refused[lg.Name]; ok {
			out = append(out, answer.Diagnostic{Category: string(RemovedTooEarly), Pos: at, Related: []answer.Related{},
				Message: fmt.Sprintf("list has gate %s, which no feature map of the code declares, and the tree's feature-list tool refuses the removal at %s: %s", lg.Name, r.Lifecycle.Current, why)})
			continue
		}
		out = append(out, diag(at, "list has gate %s, which no feature map of the code declares", lg.Name))
	}
	return out
}

// Markdown compares a committed feature_list.md with the one
// the tree's generator writes, as hack/verify-featuregates.sh does (its
// diff -q), and says where: a row that differs or that the file lacks is
// a stale-markdown diagnostic at the gate's entry in the code, a row the
// code has no gate for or any other line at the file's line. rewrite,
// when set, ends each message.
func Markdown(r *answer.GatesReport, file string, data []byte, rewrite string) ([]answer.Diagnostic, error) {
	var want strings.Builder
	if err := r.WriteMarkdownList(&want); err != nil {
		return nil, err
	}
	if want.String() == string(data) {
		return nil, nil
	}
	diag := staleDiag(StaleMarkdown, rewrite)
	have, wantRows := markdownRows(string(data)), markdownRows(want.String())
	var out []answer.Diagnostic
	for _, row := range wantRows.rows {
		got, ok := have.byName[row.name]
		g := r.Gate(row.name)
		at := answer.Pos{File: file, Line: 1, Column: 1}
		if g != nil {
			at = g.Entry
		}
		switch {
		case !ok:
			out = append(out, diag(at, "%s lacks the row of gate %s", file, row.name))
		case got.text != row.text:
			out = append(out, diag(at, "%s:%d: the row of %s is %q; the generator writes %q", file, got.line, row.name, got.text, row.text))
		}
	}
	for _, row := range have.rows {
		if _, ok := wantRows.byName[row.name]; !ok {
			out = append(out, diag(answer.Pos{File: file, Line: row.line, Column: 1}, "%s has a row for %s, which no map the generator lists declares", file, row.name))
		}
	}
	if len(out) == 0 {
		// The rows agree: the header, the legend or the order differs.
		line := 1
		for i := 0; i < len(data) && i < want.Len() && data[i] == want.String()[i]; i++ {
			if data[i] == '\n' {
				line++
			}
		}
		out = append(out, diag(answer.Pos{File: file, Line: line, Column: 1}, "%s:%d differs from what the generator writes (outside the rows: header, legend or order)", file, line))
	}
	return out, nil
}

// mdRow is a row of a Markdown list: its gate, its text and its line.
type mdRow struct {
	name, text string
	line       int
}

type mdRows struct {
	rows   []mdRow
	byName map[string]mdRow
}

// markdownRows reads the rows of a feature list's table (lines "| Name |
// ..." after the header's rule).
func markdownRows(s string) mdRows {
	out := mdRows{byName: map[string]mdRow{}}
	inTable := false
	for i, l := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(l, "|---------|"):
			inTable = true
		case inTable && strings.HasPrefix(l, "| "):
			name, _, _ := strings.Cut(strings.TrimPrefix(l, "| "), " |")
			row := mdRow{name, l, i + 1}
			out.rows = append(out.rows, row)
			out.byName[name] = row
		default:
			inTable = false
		}
	}
	return out
}
