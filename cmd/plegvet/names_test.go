package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/plegvet/plegvet/srcpos"
)

// openfiles DIR FILE reads FILE, an answer's JSON or a SARIF log, and
// opens under DIR every file it names, each reversed from its written
// form: a JSON answer's "file" by srcpos.FromJSONName, a SARIF
// artifactLocation's relative "uri" by percent-decoding. It fails when a
// name opens no file, or when FILE names none.
func openfiles(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: openfiles DIR FILE")
	}
	var doc any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &doc))
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, m := range v {
				switch s, _ := m.(string); {
				case k == "file" && s != "":
					name, err := srcpos.FromJSONName(s)
					ts.Check(err)
					names = append(names, name)
				case k == "uri" && v["uriBaseId"] != nil:
					name, err := url.PathUnescape(s)
					ts.Check(err)
					names = append(names, name)
				}
				walk(m)
			}
		case []any:
			for _, m := range v {
				walk(m)
			}
		}
	}
	walk(doc)
	if len(names) == 0 {
		ts.Fatalf("%s names no file", args[1])
	}
	for _, name := range names {
		f, err := os.Open(filepath.Join(ts.MkAbs(args[0]), filepath.FromSlash(name)))
		if err != nil {
			ts.Fatalf("%s names %q, which opens no file: %v", args[1], name, err)
		}
		f.Close()
	}
}
