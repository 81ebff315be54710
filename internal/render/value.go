package render

import (
	"fmt"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// ValueForm says how Value words a value read from the tree.
type ValueForm int

const (
	// Prose words a period in a sentence: "5m0s", "an unknown period",
	// "a period plegvet could not resolve (why)".
	Prose ValueForm = iota
	// Cell is a table's cell: "5m0s", "-", "unresolved".
	Cell
	// Cited gives the value with its evidence: "5m0s = name
	// (file:line)", "-", "unresolved: why".
	Cited
)

// Value words a value read from the tree (nil: none was) in form.
func Value(v *answer.Value, form ValueForm) string {
	switch {
	case v == nil && form == Prose:
		return "an unknown period"
	case v == nil:
		return "-"
	case v.Unresolved != "" && form == Prose:
		return "a period plegvet could not resolve (" + v.Unresolved + ")"
	case v.Unresolved != "" && form == Cell:
		return "unresolved"
	case v.Unresolved != "":
		return "unresolved: " + v.Unresolved
	case form == Cited:
		return Evidence(v.Value, v.Const, v.Decl)
	}
	return v.Value
}

// Every words how often something runs at period v: "every 5m0s", or,
// when v is not a constant, "at" the period as Prose words it.
func Every(v *answer.Value) string {
	if v == nil || v.Unresolved != "" {
		return "at " + Value(v, Prose)
	}
	return "every " + v.Value
}

// Count words a retry count as Value words a value Cited.
func Count(r *answer.RetryCount) string {
	switch {
	case r == nil:
		return "-"
	case r.Unresolved != "":
		return "unresolved: " + r.Unresolved
	}
	return Evidence(fmt.Sprint(*r.Value), r.Const, r.Decl)
}

// Evidence is a value as read: "5m0s = name (file:line)", with the
// constant it came from and where that is declared, each when known.
func Evidence(value, constant string, decl *answer.Pos) string {
	if constant != "" {
		value += " = " + constant
	}
	if decl != nil {
		value += " (" + srcpos.Line(decl) + ")"
	}
	return value
}

// Ratio words a ratio of periods: 10, 2.5, 0.333.
func Ratio(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprint(int64(f))
	}
	return fmt.Sprintf("%.3g", f)
}
