// Package check names plegvet's checks. A check's name is the category
// of the diagnostics it reports, the last part of its SARIF rule and the
// bullet of its analyzer's doc.go that documents it.
package check

// Check is a check's name, such as "alpha-default-on".
type Check string

// Severity is how much a check's findings weigh: the level of its SARIF
// results.
type Severity string

const (
	// Warning is a finding to act on: every check's, unless its doc entry
	// says otherwise.
	Warning Severity = "warning"
	// Note is informational: nothing to fix.
	Note Severity = "note"
)

// Doc is a check with its documentation, the text of its bullet, and the
// severity of its findings.
type Doc struct {
	Check    Check
	Text     string
	Severity Severity
}

// Rule is a check as code scanning lists it: ID GROUP/CHECK, the URL that
// documents its group, and its doc entry.
type Rule struct {
	ID  string
	URL string
	Doc
}
