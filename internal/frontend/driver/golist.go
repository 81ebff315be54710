package driver

import (
	"strings"
)

// goListError is the one line a go list that failed says (go/packages
// wraps its failure as "err: exit status 1: stderr: ..."): the patterns,
// the go command's own first error (with the line it announces, when it
// ends in a colon), which names the file at fault when there is one, and
// what plegvet wanted instead. An error of another shape (no packages
// matched, a type error) is its message.
func goListError(err error, patterns []string) string {
	msg := err.Error()
	rest, wrapped := strings.CutPrefix(msg, "err: ")
	cause, stderr, ok := strings.Cut(rest, ": stderr: ")
	if !wrapped || !ok {
		return msg
	}
	what := "go list " + strings.Join(patterns, " ") + ": "
	if strings.Contains(cause, "go command required, not found") {
		return what + "the go command is not on PATH; want it there: plegvet PACKAGES asks go list for the packages, as go vet does"
	}
	first := firstGoError(stderr)
	if first == "" {
		return what + cause // killed, interrupted: the go command said nothing
	}
	return what + first + "; want " + goListWant(first)
}

// firstGoError is the go command's first error line in its stderr, its
// "go: " dropped; a line ending in a colon ("errors parsing go.mod:") is
// joined with the next, which says what. Progress lines are skipped.
func firstGoError(stderr string) string {
	var lines []string
	for l := range strings.Lines(stderr) {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "go: downloading ") || strings.HasPrefix(l, "go: finding ") {
			continue
		}
		lines = append(lines, strings.TrimPrefix(l, "go: "))
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) > 1 && strings.HasSuffix(lines[0], ":") {
		return lines[0] + " " + lines[1]
	}
	return lines[0]
}

// goListWant says what the go command needed, for the causes a tree or an
// environment commonly gives it.
func goListWant(first string) string {
	switch {
	case strings.Contains(first, "requires go >="):
		return "a go command at least as new as the go line (on PATH, or GOTOOLCHAIN=auto, with which the go command fetches it)"
	case strings.Contains(first, "GOTOOLCHAIN"):
		return "GOTOOLCHAIN local, auto, path, or a toolchain name such as go1.26.8 (go help toolchain)"
	case strings.Contains(first, "-mod="):
		return "-mod=mod, readonly or vendor (in GOFLAGS)"
	case strings.Contains(first, "vendor"):
		return "vendor/ as go mod vendor writes it, or -mod=mod or -mod=readonly (in GOFLAGS) to read the module cache instead"
	case strings.Contains(first, "go.work"):
		return "a go.work the go command reads (or GOWORK=off)"
	case strings.Contains(first, "go.mod"):
		return "a go.mod the go command reads"
	}
	return "patterns that go list accepts in this module"
}
