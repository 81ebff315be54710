// Package layering holds the test that plegvet's dependencies point down:
// the plumbing under internal/ depends on neither the library (the root
// package) nor an analyzer. It has no code of its own.
package layering
