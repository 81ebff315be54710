// Package sarif writes findings as SARIF 2.1.0, the format code-scanning
// services read: one run, the checks as rules with help text and URLs,
// results with regions, related locations and fixes.
package sarif

import (
	"encoding/json"
	"io"
	"sort"
)

// SchemaURI is the SARIF 2.1.0 schema results declare.
const SchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// Rule is a check.
type Rule struct {
	ID      string // "featuregate/alpha-default-on"
	Name    string // "alpha-default-on"
	Summary string // one line
	Help    string // what it means and what to do
	HelpURI string
}

// Location is a region of a file relative to the source root.
type Location struct {
	File                string
	StartLine, StartCol int
	EndLine, EndCol     int // zero: same as start
	Message             string
}

// Edit replaces a region with text.
type Edit struct {
	Location
	Text string
}

// Fix is a suggested fix.
type Fix struct {
	Description string
	Edits       []Edit
}

// Result is one finding.
type Result struct {
	RuleID  string
	Message string
	Level   string // "error", "warning" or "note"; "" is "warning"
	Location
	Related []Location
	Fixes   []Fix
}

// Write writes one SARIF log of tool's results.
func Write(w io.Writer, tool, version, infoURI string, rules []Rule, results []Result) error {
	type message struct {
		Text string `json:"text"`
	}
	type artifactLocation struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	type region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	type physicalLocation struct {
		ArtifactLocation artifactLocation `json:"artifactLocation"`
		Region           *region          `json:"region,omitempty"`
	}
	type location struct {
		ID               *int             `json:"id,omitempty"`
		PhysicalLocation physicalLocation `json:"physicalLocation"`
		Message          *message         `json:"message,omitempty"`
	}
	type replacement struct {
		DeletedRegion   region   `json:"deletedRegion"`
		InsertedContent *message `json:"insertedContent,omitempty"`
	}
	type artifactChange struct {
		ArtifactLocation artifactLocation `json:"artifactLocation"`
		Replacements     []replacement    `json:"replacements"`
	}
	type fix struct {
		Description     message          `json:"description"`
		ArtifactChanges []artifactChange `json:"artifactChanges"`
	}
	type result struct {
		RuleID           string     `json:"ruleId"`
		RuleIndex        int        `json:"ruleIndex"`
		Level            string     `json:"level"`
		Message          message    `json:"message"`
		Locations        []location `json:"locations"`
		RelatedLocations []location `json:"relatedLocations,omitempty"`
		Fixes            []fix      `json:"fixes,omitempty"`
	}
	type rule struct {
		ID               string  `json:"id"`
		Name             string  `json:"name"`
		ShortDescription message `json:"shortDescription"`
		FullDescription  message `json:"fullDescription"`
		Help             message `json:"help"`
		HelpURI          string  `json:"helpUri,omitempty"`
	}
	type driver struct {
		Name           string `json:"name"`
		Version        string `json:"version,omitempty"`
		InformationURI string `json:"informationUri,omitempty"`
		Rules          []rule `json:"rules"`
	}
	type run struct {
		Tool struct {
			Driver driver `json:"driver"`
		} `json:"tool"`
		OriginalURIBaseIDs map[string]artifactLocation `json:"originalUriBaseIds,omitempty"`
		Results            []result                    `json:"results"`
	}
	reg := func(l Location) *region {
		if l.StartLine <= 0 {
			return nil
		}
		r := &region{StartLine: l.StartLine, StartColumn: l.StartCol, EndLine: l.EndLine, EndColumn: l.EndCol}
		if r.EndLine == 0 {
			r.EndLine, r.EndColumn = r.StartLine, r.StartColumn
		}
		return r
	}
	loc := func(l Location) location {
		out := location{PhysicalLocation: physicalLocation{ArtifactLocation: artifactLocation{URI: l.File, URIBaseID: "SRCROOT"}, Region: reg(l)}}
		if l.Message != "" {
			out.Message = &message{Text: l.Message}
		}
		return out
	}
	sorted := append([]Rule(nil), rules...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	index := map[string]int{}
	var r run
	r.Tool.Driver = driver{Name: tool, Version: version, InformationURI: infoURI, Rules: []rule{}}
	for i, ru := range sorted {
		index[ru.ID] = i
		r.Tool.Driver.Rules = append(r.Tool.Driver.Rules, rule{
			ID: ru.ID, Name: ru.Name, ShortDescription: message{ru.Summary}, FullDescription: message{ru.Help},
			Help: message{ru.Help}, HelpURI: ru.HelpURI,
		})
	}
	r.Results = []result{}
	for _, res := range results {
		level := res.Level
		if level == "" {
			level = "warning"
		}
		out := result{RuleID: res.RuleID, RuleIndex: index[res.RuleID], Level: level, Message: message{res.Message}, Locations: []location{loc(res.Location)}}
		for i, rel := range res.Related {
			l := loc(rel)
			id := i + 1
			l.ID = &id
			out.RelatedLocations = append(out.RelatedLocations, l)
		}
		for _, f := range res.Fixes {
			byFile := map[string]*artifactChange{}
			var order []string
			for _, e := range f.Edits {
				ch, ok := byFile[e.File]
				if !ok {
					ch = &artifactChange{ArtifactLocation: artifactLocation{URI: e.File, URIBaseID: "SRCROOT"}}
					byFile[e.File] = ch
					order = append(order, e.File)
				}
				rg := reg(e.Location)
				if rg == nil {
					continue
				}
				ch.Replacements = append(ch.Replacements, replacement{DeletedRegion: *rg, InsertedContent: &message{e.Text}})
			}
			sf := fix{Description: message{f.Description}}
			for _, file := range order {
				sf.ArtifactChanges = append(sf.ArtifactChanges, *byFile[file])
			}
			out.Fixes = append(out.Fixes, sf)
		}
		r.Results = append(r.Results, out)
	}
	log := struct {
		Schema  string `json:"$schema"`
		Version string `json:"version"`
		Runs    []run  `json:"runs"`
	}{SchemaURI, "2.1.0", []run{r}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}
