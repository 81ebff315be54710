package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/plegvet/plegvet/constvalue"
)

// Value is a relist duration (or a retry count) resolved to a constant,
// or why it could not be.
type Value = constvalue.Value

// RetryCount is a count (the evented PLEG's stream retries) as answers
// print it.
type RetryCount = constvalue.RetryCount

// resolver resolves expressions of one package to constants, and follows
// the values a PLEG is built with (arg, reassigned, tickerPeriod).
type resolver struct{ *constvalue.Resolver }

func newResolver(fset *token.FileSet, files []*ast.File, info *types.Info) *resolver {
	return &resolver{constvalue.NewResolver(fset, files, info)}
}

func isDuration(t types.Type) bool { return isTimeType(t, "Duration") }
