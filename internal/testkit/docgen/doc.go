// Package docgen holds the test that writes docs/checks.md, every check
// and setting of plegvet, from the suite (as gopls writes its analyzers
// page from its analyzers), and fails when the page says anything else.
// It has no code of its own: the page is rendered by the test, which may
// depend on the suite, and through it on the analyzers, where plumbing
// under internal/ may not (internal/testkit/layering).
package docgen

//go:generate env UPDATE_GOLDEN=1 go test -count=1 -run ^TestChecksDoc$ .
