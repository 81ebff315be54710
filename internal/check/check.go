// Package check names plegvet's checks. A check's name is the category
// of the diagnostics it reports, the last part of its SARIF rule and the
// bullet of its analyzer's doc.go that documents it.
package check

// Check is a check's name, such as "alpha-default-on".
type Check string

// Doc is a check with its documentation, the text of its bullet.
type Doc struct {
	Check Check
	Text  string
}
