package driver

import (
	"errors"
	"testing"
)

// go/packages' wrapping of a failed go list becomes one line: the go
// command's first error, with the line it announces, and what was wanted.
func TestGoListError(t *testing.T) {
	for raw, want := range map[string]string{
		"err: exit status 1: stderr: go: downloading example.com/x v1.0.0\ngo: errors parsing go.work:\ngo.work:3: unknown directive: bogus\n": "go list ./...: errors parsing go.work: go.work:3: unknown directive: bogus; want a go.work the go command reads (or GOWORK=off)",
		"err: exit status 1: stderr: -mod=bogus not supported (can be '', 'mod', 'readonly', or 'vendor')\n":                                   "go list ./...: -mod=bogus not supported (can be '', 'mod', 'readonly', or 'vendor'); want -mod=mod, readonly or vendor (in GOFLAGS)",
		"err: signal: killed: stderr: ": "go list ./...: signal: killed",
		"./x matched no packages":       "./x matched no packages",
	} {
		if got := goListError(errors.New(raw), []string{"./..."}); got != want {
			t.Errorf("goListError(%q) =\n%s\nwant\n%s", raw, got, want)
		}
	}
}
