package main

import (
	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/srcpos"
)

// withJSONNames runs write with every file name of v's answers in its JSON
// form (srcpos.JSONName: a name that is not UTF-8 Go-quoted, so that it
// survives JSON), then gives the names back: what is printed after the
// JSON (stderr's problems) names the files as text does.
func withJSONNames(v any, write func() error) error {
	var answers []plegvet.Located
	switch v := v.(type) {
	case plegvet.Located:
		answers = append(answers, v)
	case []*plegvet.Report: // a timeline's rows
		for _, r := range v {
			answers = append(answers, r)
		}
	}
	// A position two parts share is visited twice: rename it once.
	renamed := map[*string]string{}
	for _, a := range answers {
		a.Files(func(f *string) {
			if _, done := renamed[f]; !done {
				renamed[f] = *f
				*f = srcpos.JSONName(*f)
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
