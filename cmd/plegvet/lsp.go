package main

import (
	"context"
	"flag"
	"io"
	"os"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/lsp"
)

// runLSP serves the Language Server Protocol on stdin and stdout: an
// editor starts plegvet lsp and shows its findings as files are edited.
func runLSP(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lsp", flag.ContinueOnError)
	// The analyzers' own flags, named as for the checks (-pleg.note):
	// an editor's command line sets them.
	analyzers := suite.Defaults()
	for _, a := range analyzers {
		a.Flags.VisitAll(func(f *flag.Flag) { fs.Var(f.Value, a.Name+"."+f.Name, f.Usage) })
	}
	if code, ok := parseNoArgs(fs, args, stdout, stderr); !ok {
		return code
	}
	if err := lsp.Serve(ctx, os.Stdin, os.Stdout, lsp.Options{Analyzers: analyzers, Rule: rule, FromSource: suite.FromSource}); err != nil {
		return fail(stderr, "lsp", err)
	}
	return exitOK
}

// rule is a check's SARIF rule ID, severity and documentation, as the
// suite lists them.
func rule(category string) (id, severity, href string, ok bool) {
	g, doc, ok := suite.Rule(category)
	if !ok {
		return "", "", "", false
	}
	return g.Name + "/" + category, string(doc.Severity), g.URL, true
}
