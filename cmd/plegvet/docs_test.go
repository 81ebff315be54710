package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var updateDocs = flag.Bool("update", false, "rewrite the example outputs of README.md and docs/ (as UPDATE_GOLDEN=1 does)")

// docColumns is the width the documents' examples are shown at.
const docColumns = 100

// cutLine stands, in an example's output, for lines left out:
// "... (12 lines left out)". The test checks the lines around it at
// their places, and -update keeps each shown part where it was.
var cutLine = regexp.MustCompile(`^\.\.\. \((\d+) lines? left out\)$`)

// Every plegvet command README.md and docs/ show runs, and each example's
// output is what the command prints (stdout, then stderr; the lines a
// cold module cache adds aside), at 100 columns, with the cuts marked
// "... (N lines left out)":
//
//   - in a session block (lines "$ COMMAND", its output under it), each
//     plegvet command runs in the directory the block's "$ cd DIR" lines
//     name (from the repository's root) and its output is compared;
//   - in a sh block, each plegvet command (or go run ./cmd/plegvet) runs
//     where docShell sets it up and must exit 0.
//
// The blocks of plegvet help SUBCOMMAND are TestFlagsDocumented's (run
// here too). A command that downloads (-k8s, a runtime fetched by its
// version) is integration: skipped under -short, unless CI=true.
// `go test ./cmd/plegvet -run TestDocs -update` (or UPDATE_GOLDEN=1)
// rewrites the outputs; review the diff.
func TestDocs(t *testing.T) {
	t.Setenv("COLUMNS", strconv.Itoa(docColumns))
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, pat := range []string{"docs/*.md", "docs/commands/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pat)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, _ := filepath.Rel(root, f)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	ran := 0
	for _, file := range files {
		data, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		cmds := docCommands(lines)
		for i := len(cmds) - 1; i >= 0; i-- { // from the end: a rewrite keeps the places above
			c := cmds[i]
			ran++
			t.Run(fmt.Sprintf("%s:%d", file, c.line+1), func(t *testing.T) {
				got, ok := c.run(t, root)
				if !ok || c.out == nil {
					return
				}
				shown := lines[c.out[0]:c.out[1]]
				if err := matchShown(shown, got); err == nil {
					return
				} else if !docUpdating() {
					t.Errorf("%s:%d: $ %s: the output shown is not the command's: %v (go test ./cmd/plegvet -run TestDocs -update rewrites it)\nit prints:\n%s", file, c.line+1, c.text, err, strings.Join(got, "\n"))
					return
				}
				lines = slices.Concat(lines[:c.out[0]], regenerate(shown, got), lines[c.out[1]:])
			})
		}
		if docUpdating() && strings.Join(lines, "\n") != string(data) {
			if err := os.WriteFile(filepath.Join(root, file), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if ran < 12 {
		t.Fatalf("found %d plegvet commands in README.md and docs/; the parser lost them", ran)
	}
	// The help blocks, as TestFlagsDocumented writes them.
	t.Run("help", TestFlagsDocumented)
}

func docUpdating() bool { return *updateDocs || os.Getenv("UPDATE_GOLDEN") != "" }

// docCommand is one plegvet command a document shows.
type docCommand struct {
	line int      // its line's index
	text string   // as shown, continuation lines joined, comment dropped
	dir  string   // a session's directory, from the repository's root
	out  []int    // the indexes [first, end) of the output shown; nil in a sh block
	sh   bool     // in a sh block: no output shown, exit 0 wanted
	args []string // plegvet's arguments
}

// docCommands finds the plegvet commands of a document's fenced blocks.
func docCommands(lines []string) []docCommand {
	var cmds []docCommand
	inFlags := false // between TestFlagsDocumented's markers
	for i := 0; i < len(lines); i++ {
		switch {
		case strings.HasPrefix(lines[i], strings.TrimSuffix(flagsBegin, "\n")):
			inFlags = true
		case strings.HasPrefix(lines[i], strings.TrimSuffix(flagsEnd, "\n")):
			inFlags = false
		}
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		lang := strings.TrimSpace(strings.TrimPrefix(lines[i], "```"))
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		block := lines[i+1 : end]
		session := slices.ContainsFunc(block, func(l string) bool { return strings.HasPrefix(l, "$ ") })
		switch {
		case session && !inFlags:
			cmds = append(cmds, sessionCommands(lines, i+1, end)...)
		case !session && (lang == "sh" || lang == "shell" || lang == "bash"):
			for j := i + 1; j < end; j++ {
				text := shellCommand(lines[j])
				if args, ok := plegvetArgs(text); ok {
					cmds = append(cmds, docCommand{line: j, text: text, sh: true, args: args})
				}
			}
		}
		i = end
	}
	return cmds
}

// sessionCommands are the plegvet commands of a session block's lines
// [start, end), each with the output under it and the directory of the
// "$ cd" lines before it.
func sessionCommands(lines []string, start, end int) []docCommand {
	var cmds []docCommand
	dir := "."
	for j := start; j < end; j++ {
		if !strings.HasPrefix(lines[j], "$ ") {
			continue
		}
		first := j
		text := strings.TrimPrefix(lines[j], "$ ")
		for strings.HasSuffix(text, "\\") && j+1 < end {
			j++
			text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[j])
		}
		text = shellCommand(text)
		outEnd := j + 1
		for outEnd < end && !strings.HasPrefix(lines[outEnd], "$ ") {
			outEnd++
		}
		for outEnd > j+1 && lines[outEnd-1] == "" {
			outEnd-- // the blank line between commands
		}
		if d, ok := strings.CutPrefix(text, "cd "); ok {
			dir = filepath.ToSlash(filepath.Join(dir, strings.TrimSpace(d)))
			continue
		}
		if args, ok := plegvetArgs(text); ok {
			cmds = append(cmds, docCommand{line: first, text: text, dir: dir, out: []int{j + 1, outEnd}, args: args})
		}
	}
	return cmds
}

// shellCommand is a shell line without its comment and redirections.
func shellCommand(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, " > "); i >= 0 {
		line = line[:i]
	}
	return strings.Join(strings.Fields(line), " ")
}

// plegvetArgs are the arguments of a plegvet command line (or of go run
// ./cmd/plegvet), quotes removed.
func plegvetArgs(text string) ([]string, bool) {
	rest, ok := strings.CutPrefix(text, "plegvet ")
	if !ok {
		rest, ok = strings.CutPrefix(text, "go run ./cmd/plegvet ")
	}
	if !ok {
		return nil, false
	}
	var args []string
	for _, f := range strings.Fields(rest) {
		args = append(args, strings.Trim(f, `'"`))
	}
	return args, true
}

// downloads reports whether the command fetches a module: a release
// (-k8s), or a runtime named by its version rather than read with -C.
func (c docCommand) downloads() bool {
	if _, sub := lookup(c.args[0]); !sub {
		return false // an unknown command: refused before anything is fetched
	}
	for _, a := range c.args {
		if a == "-k8s" || strings.HasPrefix(a, "-k8s=") {
			return true
		}
	}
	return c.args[0] == "runtime" && !slices.Contains(c.args, "-C")
}

// run runs the command as the document says, and returns what it prints
// (stdout, then stderr, less the lines a cold module cache adds); ok is
// false where the test was skipped or failed.
func (c docCommand) run(t *testing.T, root string) (lines []string, ok bool) {
	if c.downloads() {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); testing.Short() && !ci {
			t.Skip("downloads a module (integration; runs without -short, or with CI=true)")
		}
	}
	dir := filepath.Join(root, filepath.FromSlash(c.dir))
	if c.sh {
		dir = docShell(t, c)
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := dispatch(c.args, &stdout, &stderr)
	if c.sh {
		if code != exitOK {
			t.Errorf("$ %s (in %s): exit %d, want 0\n%s%s", c.text, dir, code, stdout.String(), stderr.String())
		}
		return nil, false
	}
	text := stdout.String() + withoutProgress(stderr.String())
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), true
}

// docShell is the directory a sh block's command runs in: a checkout for
// those that read one (-C .), the gates_verify script's look-alike, its
// feature list also where Kubernetes keeps its own; else an empty one.
func docShell(t *testing.T, c docCommand) string {
	dir := t.TempDir()
	if !slices.Contains(c.args, "-C") || c.args[slices.Index(c.args, "-C")+1] != "." {
		return dir
	}
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", "gates_verify.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		name, ok := strings.CutPrefix(f.Name, "tree/")
		if !ok {
			continue
		}
		for _, n := range []string{name, strings.Replace(name, "test/lifecycle/gates.yaml", "test/compatibility_lifecycle/reference/versioned_feature_list.yaml", 1)} {
			p := filepath.Join(dir, filepath.FromSlash(n))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// matchShown says how the lines shown differ from the lines printed:
// each shown line at its place, each cut line standing for as many lines
// as it says.
func matchShown(shown, got []string) error {
	pos := 0
	for i, l := range shown {
		if m := cutLine.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			pos += n
			continue
		}
		if pos >= len(got) {
			return fmt.Errorf("shown line %d, %q, is past the output's end (%d lines)", i+1, l, len(got))
		}
		if got[pos] != l {
			return fmt.Errorf("shown line %d is %q; the output's line %d is %q", i+1, l, pos+1, got[pos])
		}
		pos++
	}
	if pos != len(got) {
		return fmt.Errorf("the output has %d lines, the example %d (cuts counted)", len(got), pos)
	}
	return nil
}

// regenerate shows the lines printed as the old example showed its own:
// the same number of lines first; each later part from the line it
// started with, where that line is still printed (else after as many
// lines cut as before), as many lines as before; a last part, the
// output's last lines.
func regenerate(shown, got []string) []string {
	type part struct {
		cut  int // lines cut before it
		show []string
	}
	var parts []part
	cur := part{}
	for _, l := range shown {
		if m := cutLine.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			if len(cur.show) > 0 || cur.cut > 0 || len(parts) == 0 {
				parts = append(parts, cur)
			}
			cur = part{cut: n}
			continue
		}
		cur.show = append(cur.show, l)
	}
	parts = append(parts, cur)
	if len(parts) == 1 {
		return got // shown whole
	}
	var out []string
	pos := 0
	for i, p := range parts {
		cut := p.cut
		switch {
		case i == len(parts)-1 && len(p.show) > 0:
			cut = max(len(got)-len(p.show)-pos, 0)
		case i == len(parts)-1:
			cut = len(got) - pos
		case len(p.show) > 0 && i > 0:
			if j := slices.Index(got[pos:], p.show[0]); j >= 0 {
				cut = j
			}
		}
		cut = min(cut, len(got)-pos)
		if cut > 0 {
			out = append(out, fmt.Sprintf("... (%d %s left out)", cut, map[bool]string{true: "line", false: "lines"}[cut == 1]))
			pos += cut
		}
		n := min(len(p.show), len(got)-pos)
		out = append(out, got[pos:pos+n]...)
		pos += n
	}
	return out
}
