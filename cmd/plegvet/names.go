package main

import (
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/srcpos"
)

// File names are bytes, which an answer prints as they are: JSON, which
// holds text, writes bytes that are not UTF-8 as U+FFFD, and the text
// tables' tabwriter takes the byte 0xff for its escape character. So both
// print an answer with its file names in a form each keeps.

// withJSONNames runs write with every file name of v's answers in its JSON
// form (srcpos.JSONName: a name that is not UTF-8 Go-quoted, so that it
// survives JSON).
func withJSONNames(v any, write func() error) error {
	return withNames(v, func(name string, _ *srcpos.Pos) string { return srcpos.JSONName(name) }, write)
}

// withNames runs write with every file name of v's answers in the form
// form gives (a position's Path too), then gives the names back: what is
// printed afterwards (stderr's problems) names the files as before.
func withNames(v any, form func(name string, at *srcpos.Pos) string, write func() error) error {
	var answers []answer.Located
	switch v := v.(type) {
	case answer.Located:
		answers = append(answers, v)
	case []*answer.Report: // a timeline's rows
		for _, r := range v {
			answers = append(answers, r)
		}
	}
	// A position two parts share is visited twice: rename it once.
	renamed := map[*string]string{}
	rename := func(f *string, form func(string) string) {
		if _, done := renamed[f]; !done {
			renamed[f] = *f
			*f = form(*f)
		}
	}
	for _, a := range answers {
		a.Files(func(name *string, at *srcpos.Pos) {
			rename(name, func(n string) string { return form(n, at) })
			if at != nil && at.Path != "" {
				rename(&at.Path, func(n string) string { return form(n, nil) })
			}
		})
	}
	defer func() {
		for f, name := range renamed {
			*f = name
		}
	}()
	return write()
}
