// Package version stands in for apimachinery's version package in
// plegvet's golangci-lint fixture: only what a feature map needs.
package version

// Version is a parsed Kubernetes version.
type Version struct {
	text string
}

// MustParse returns the version s names.
func MustParse(s string) *Version { return &Version{text: s} }
