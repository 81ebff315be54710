package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Flag blocks in docs/commands/NAME.md are plegvet help NAME, between these
// markers; UPDATE_GOLDEN=1 rewrites them.
const (
	flagsBegin = "<!-- plegvet help: generated from the flag set; UPDATE_GOLDEN=1 go test ./cmd/plegvet -run TestFlagsDocumented -->\n"
	flagsEnd   = "<!-- end plegvet help -->\n"
)

// TestFlagsDocumented checks, for every flag of every subcommand's one
// flag set, that it appears in its usage line, in plegvet help NAME with
// the default it really has, and in docs/commands/NAME.md, whose flag
// block is plegvet help NAME as it prints.
func TestFlagsDocumented(t *testing.T) {
	// The documents show help as a terminal of their width shows it.
	t.Setenv("COLUMNS", strconv.Itoa(docColumns))
	var all bytes.Buffer
	if code, _ := command([]string{"help"}, &all, &all); code != exitOK {
		t.Fatalf("plegvet help: exit %d", code)
	}
	for _, sc := range subcommands() {
		t.Run(sc.name, func(t *testing.T) {
			var help, stderr bytes.Buffer
			if code := runSubcommand(sc, []string{"-h"}, &help, &stderr); code != exitOK || stderr.Len() > 0 {
				t.Fatalf("plegvet help %s: exit %d, %s", sc.name, code, stderr.String())
			}
			line := synopsis(sc)
			flagSetOf(sc).VisitAll(func(f *flag.Flag) {
				if !regexp.MustCompile(`\[-` + regexp.QuoteMeta(f.Name) + `[] ]`).MatchString(line) {
					t.Errorf("-%s is not in the usage line %q", f.Name, line)
				}
				if !strings.Contains(all.String(), "[-"+f.Name) {
					t.Errorf("-%s is not in plegvet help", f.Name)
				}
				entry := flagEntry(help.String(), f.Name)
				if entry == "" {
					t.Errorf("-%s is not in plegvet help %s", f.Name, sc.name)
				}
				if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "0s" && !strings.Contains(entry, "(default ") {
					t.Errorf("plegvet help %s: -%s does not say its default %q:\n%s", sc.name, f.Name, def, entry)
				} else if def != "" && def != "false" && def != "0" && def != "0s" && !strings.Contains(entry, def) {
					t.Errorf("plegvet help %s: -%s says another default than %q:\n%s", sc.name, f.Name, def, entry)
				}
			})
			if !strings.HasPrefix(help.String(), "usage: "+wrapSynopsis(synopsisWords(sc), "        ", 78)+"\n") {
				t.Errorf("plegvet help %s does not open with its usage line:\n%s", sc.name, help.String())
			}
			checkDocFlags(t, sc.name, help.String())
		})
	}
}

// flagEntry is the lines of flag name in flag.PrintDefaults' output.
func flagEntry(help, name string) string {
	_, rest, ok := strings.Cut(help, "\n  -"+name+"\n")
	if !ok {
		_, rest, ok = strings.Cut(help, "\n  -"+name+" ")
	}
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "\n  -"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// checkDocFlags checks that docs/commands/NAME.md holds plegvet help NAME
// between the markers (appended at its end when it has none).
func checkDocFlags(t *testing.T, name, help string) {
	t.Helper()
	file := filepath.Join("..", "..", "docs", "commands", name+".md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	block := flagsBegin + "```\n$ plegvet help " + name + "\n" + help + "```\n" + flagsEnd
	doc := string(data)
	before, rest, found := strings.Cut(doc, flagsBegin)
	_, after, _ := strings.Cut(rest, flagsEnd)
	if !found {
		before, after = strings.TrimRight(doc, "\n")+"\n\n## Usage and flags\n\n", ""
	}
	want := before + block + after
	if want == doc {
		return
	}
	if docUpdating() {
		if err := os.WriteFile(file, []byte(want), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: its flags are not plegvet help %s as it prints (UPDATE_GOLDEN=1 rewrites them)", file, name)
	for _, line := range strings.Split(help, "\n") {
		if strings.HasPrefix(line, "  -") && !strings.Contains(doc, line+"\n") {
			t.Errorf("%s lacks %q", file, line)
		}
	}
}
