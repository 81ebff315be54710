// Package sarif writes plegvet's diagnostics as SARIF 2.1.0, the format
// code-scanning services read: one run per log, named by its category,
// every check as a rule with its
// documentation and URL, results with regions, related locations and
// fixes. The log is built with go-sarif's model.
//
// The package is plumbing: it takes the rules (the suite's) and the
// results as plain data from its callers and imports no analyzer.
package sarif

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	model "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/analysis/check"
	"github.com/plegvet/plegvet/internal/load/inputfile"
	"github.com/plegvet/plegvet/srcpos"
)

// SchemaURI is the SARIF 2.1.0 schema the log declares.
const SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

const (
	toolName = "plegvet"
	toolURI  = "https://github.com/plegvet/plegvet"
	srcRoot  = "%SRCROOT%" // paths are relative to the tree's root
)

// Pos is a position in the tree: File relative to its root, with /; Line
// 0 when unknown; Path, when set, the file on disk (-positions=module).
type Pos = srcpos.Pos

// Run is what one SARIF log says of a run of plegvet.
type Run struct {
	// Version is plegvet's version (the tool's).
	Version string
	// Category is what ran: the subcommand ("report"), or "vet" for the
	// standalone analyzer. It names the run's automationDetails.id,
	// AutomationID(Category), which code scanning reads as the analysis'
	// category: each log holds one run, and two logs uploaded for one
	// commit replace each other's alerts only when their categories match.
	Category string
	// Rules are every check (the suite's); Results the findings.
	Rules   []check.Rule
	Results []answer.Diagnostic
	// Root is the absolute directory the results' files are relative to:
	// the value of %SRCROOT% in originalUriBaseIds, and where each
	// result's line is read for its fingerprint. "" leaves %SRCROOT%
	// unresolved (a path that exists nowhere on disk, as a fetched
	// release's checkout paths) and fingerprints a result by its message.
	Root string
	// RootURL, for a fetched release, is the web address of its tree at
	// its tag: %SRCROOT%'s value when Root is "".
	RootURL string
	// Successful says that the run read everything it was asked to:
	// invocations[0].executionSuccessful. Notifications say what it did
	// not (a package that did not load, an analyzer that failed).
	Successful    bool
	Notifications []string
}

// AutomationID is the automationDetails.id of a run of category:
// "plegvet/CATEGORY/". Code scanning takes what comes before the last /
// as the analysis' category ("plegvet/vet", what the upload step's
// category input says) and what follows as the run's own id (none: a
// run replaces the previous one of its category). No category is
// "plegvet/", the category "plegvet".
func AutomationID(category string) string {
	if category == "" {
		return toolName + "/"
	}
	return toolName + "/" + category + "/"
}

// VetCategory is the standalone analyzer's category, plegvet PACKAGES
// (and go vet -vettool): the one the CI recipe uploads.
const VetCategory = "vet"

// FingerprintKey is the partialFingerprints key of each result: a hash of
// its rule, its file and the text of its line (trimmed), and of how many
// results of that rule on that same text come before it in the file, so
// that an alert keeps its identity when lines above it move.
const FingerprintKey = "plegvet/v1"

// Write writes a run as one SARIF log, as GitHub code scanning reads it:
// every rule with its doc entry's text as help, its URL, and its
// severity as its default level (and each result's level); each result
// with its region, related locations, fixes and fingerprint; paths
// relative to %SRCROOT%; one invocation. A result's rule is the first of
// rules named after its check; a check no rule names gets a rule of its
// own, named after it. Properties left at their defaults are not written
// (no empty arrays, no -1).
func Write(w io.Writer, r Run) error {
	rs := slices.Clone(r.Rules)
	ids := map[string]string{} // check -> rule ID
	for _, r := range r.Rules {
		if _, seen := ids[string(r.Check)]; !seen {
			ids[string(r.Check)] = r.ID
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
	for _, res := range r.Results {
		if _, seen := ids[res.Category]; !seen {
			ids[res.Category] = res.Category
			rs = append(rs, check.Rule{ID: res.Category, Doc: check.Doc{Check: check.Check(res.Category), Text: res.Category, Severity: check.Warning}})
		}
	}

	run := model.NewRunWithInformationURI(toolName, toolURI)
	run.Tool.Driver.Version = &r.Version
	run.WithAutomationDetails(model.NewRunAutomationDetails().WithID(AutomationID(r.Category)))
	index := map[string]int{}
	for i, rl := range rs {
		index[rl.ID] = i
		rd := model.NewRule(rl.ID).
			WithName(string(rl.Check)).
			WithShortDescription(text(firstSentence(rl.Text))).
			WithFullDescription(text(rl.Text)).
			WithHelp(text(rl.Text).WithMarkdown(helpMarkdown(rl.Text, rl.URL))).
			WithDefaultConfiguration(model.NewReportingConfiguration().WithLevel(level(rl.Severity)))
		if rl.URL != "" {
			rd.WithHelpURI(rl.URL)
		}
		run.Tool.Driver.AddRule(rd)
	}
	lines := lineReader{root: r.Root, files: map[string][]string{}}
	seen := map[string]int{}
	for _, d := range r.Results {
		id := ids[d.Category]
		res := model.NewRuleResult(id).
			WithRuleIndex(index[id]).
			WithLevel(level(rs[index[id]].Severity)).
			WithMessage(model.NewTextMessage(d.Message)).
			AddLocation(location(d.Pos, d.End, ""))
		res.PartialFingerprints = map[string]string{FingerprintKey: fingerprint(id, d, lines.line(d.Pos), seen)}
		for i, rel := range d.Related {
			res.AddRelatedLocation(location(rel.Pos, nil, rel.Message).WithID(i + 1))
		}
		for _, f := range d.Fixes {
			res.AddFixe(fix(f))
		}
		run.AddResult(res)
	}
	switch {
	case r.Root != "":
		run.OriginalUriBaseIds = map[string]model.ArtifactLocation{srcRoot: *model.NewArtifactLocation().WithURI(fileURI(r.Root, true))}
	case r.RootURL != "":
		run.OriginalUriBaseIds = map[string]model.ArtifactLocation{srcRoot: *model.NewArtifactLocation().WithURI(strings.TrimSuffix(r.RootURL, "/") + "/")}
	}
	inv := model.NewInvocation().WithExecutionSuccessful(r.Successful)
	for _, n := range r.Notifications {
		inv.AddToolExecutionNotification(model.NewNotification().WithLevel(model.LevelError).WithMessage(model.NewTextMessage(n)))
	}
	run.AddInvocation(inv)
	log := model.NewReport()
	log.Schema = SchemaURI
	log.AddRun(run)
	return writePruned(w, log)
}

// writePruned writes the log indented, without the properties go-sarif's
// constructors set to their schema defaults: empty arrays, and -1 (an
// index, offset, rank or id not given).
func writePruned(w io.Writer, log *model.Report) error {
	raw, err := json.Marshal(log)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	prune(v)
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// prune drops, from every object, the members whose value is an empty
// array, an empty object or -1; but a run's results, which say "none
// found" when empty (absent, they would say "not known").
func prune(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			prune(m)
			if k == "results" {
				continue
			}
			switch m := m.(type) {
			case []any:
				if len(m) == 0 {
					delete(v, k)
				}
			case map[string]any:
				if len(m) == 0 {
					delete(v, k)
				}
			case json.Number:
				if m == "-1" {
					delete(v, k)
				}
			}
		}
	case []any:
		for _, m := range v {
			prune(m)
		}
	}
}

// helpMarkdown is a rule's help as code scanning shows it: its doc entry,
// and a link to its group's documentation.
func helpMarkdown(text, uri string) string {
	if uri == "" {
		return text
	}
	return text + "\n\nSee [the check's documentation](" + uri + ")."
}

// fingerprint identifies a result across commits: its rule, file and line
// text (its message when the line cannot be read), and its place among the
// results of that rule on the same text in the same file.
func fingerprint(rule string, d answer.Diagnostic, line string, seen map[string]int) string {
	key := rule + "\x00" + d.Pos.File + "\x00" + cmp.Or(line, "message:"+d.Message)
	n := seen[key]
	seen[key]++
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.Itoa(n)))
	return hex.EncodeToString(sum[:16])
}

// lineReader reads the lines of the files under root, each file once.
type lineReader struct {
	root  string
	files map[string][]string
}

// maxFingerprintFile bounds the files read for fingerprints: a larger one
// is fingerprinted by message.
const maxFingerprintFile = 8 << 20

// line is the text of p's line, trimmed; "" when it cannot be read.
func (l *lineReader) line(p Pos) string {
	if l.root == "" || p.File == "" || p.Line <= 0 {
		return ""
	}
	lines, ok := l.files[p.File]
	if !ok {
		data, err := inputfile.ReadLimit(filepath.Join(l.root, filepath.FromSlash(p.File)), maxFingerprintFile)
		if err == nil {
			lines = strings.Split(string(data), "\n")
		}
		l.files[p.File] = lines
	}
	if p.Line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[p.Line-1])
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

// artifact locates a position's file: a file on disk named absolutely
// (-positions=module) as its file: URI; else its name relative to the
// tree's root, under %SRCROOT%, which is what code scanning reads.
func artifact(p Pos) *model.ArtifactLocation {
	if filepath.IsAbs(p.Path) {
		return model.NewArtifactLocation().WithURI(fileURI(p.Path, false))
	}
	return model.NewArtifactLocation().WithURI(relativeURI(p.File)).WithURIBaseID(srcRoot)
}

// relativeURI is a relative path as a URI reference (RFC 3986): each byte
// a path may not hold as is (a space, a byte of a name that is not UTF-8)
// percent-encoded, "kube%20features%20%FF%FE.go", as code scanning
// resolves it against %SRCROOT%.
func relativeURI(file string) string {
	return (&url.URL{Path: file}).String()
}

// fileURI is the file: URI of an absolute path (a directory's ends with /).
func fileURI(p string, dir bool) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/src: file:///C:/src
	}
	if dir {
		p = strings.TrimSuffix(p, "/") + "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
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
	pl := model.NewPhysicalLocation().WithArtifactLocation(artifact(p))
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
func fix(f answer.Fix) *model.Fix {
	out := model.NewFix().WithDescription(model.NewTextMessage(f.Message))
	byFile := map[string]*model.ArtifactChange{}
	for _, e := range f.Edits {
		ch, ok := byFile[e.Pos.File]
		if !ok {
			ch = model.NewArtifactChange().WithArtifactLocation(artifact(e.Pos))
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
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
