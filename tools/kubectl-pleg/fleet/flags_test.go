package fleet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// The markers around kubectl pleg -h in docs/commands/kubectl-pleg.md.
const (
	helpBegin = "<!-- kubectl pleg -h: generated from the flag set; in tools/kubectl-pleg, UPDATE_GOLDEN=1 go test ./fleet -run TestFlagsDocumented -->\n"
	helpEnd   = "<!-- end kubectl pleg -h -->\n"
)

// Every flag of kubectl pleg's flag set is in docs/commands/kubectl-pleg.md
// with its real default: the page holds kubectl pleg -h as it prints
// (UPDATE_GOLDEN=1 rewrites that block; the user's home directory, in
// kubectl's --cache-dir default, is written $HOME), and each flag the
// flag set defines is on a line of it naming the flag and its default.
func TestFlagsDocumented(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"-h"}, genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, nil); code != 0 || errOut.Len() > 0 {
		t.Fatalf("kubectl pleg -h: exit %d, stderr %s", code, errOut.String())
	}
	help := out.String()
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		help = strings.ReplaceAll(help, home+string(filepath.Separator), "$HOME/")
	}
	file := filepath.Join("..", "..", "..", "docs", "commands", "kubectl-pleg.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	block := helpBegin + "```\n$ kubectl pleg -h\n" + help + "```\n" + helpEnd
	before, rest, found := strings.Cut(doc, helpBegin)
	_, after, _ := strings.Cut(rest, helpEnd)
	if !found {
		before, after = strings.TrimRight(doc, "\n")+"\n\n## Usage and flags\n\n", ""
	}
	if want := before + block + after; want != doc {
		if os.Getenv("UPDATE_GOLDEN") != "" {
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			doc = want
		} else {
			t.Errorf("%s does not hold kubectl pleg -h as it prints (UPDATE_GOLDEN=1 rewrites it)", file)
		}
	}

	var v cliFlags
	n := 0
	newFlagSet(&v).VisitAll(func(f *pflag.Flag) {
		n++
		line := flagLine(doc, f.Name)
		if line == "" {
			t.Errorf("%s does not name --%s", file, f.Name)
			return
		}
		def := f.DefValue
		if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
			def = strings.ReplaceAll(def, home+string(filepath.Separator), "$HOME/")
		}
		switch def {
		case "", "false", "0", "0s", "[]":
			if strings.Contains(line, "(default ") && !strings.Contains(line, "(default: ") {
				t.Errorf("%s: --%s says a default, but it has none: %s", file, f.Name, line)
			}
		default:
			if !strings.Contains(line, "(default "+def+")") && !strings.Contains(line, "(default "+`"`+def+`"`+")") {
				t.Errorf("%s: --%s does not say its default %s: %s", file, f.Name, def, line)
			}
		}
	})
	if n < 20 {
		t.Fatalf("the flag set has %d flags; kubectl's own alone are more", n)
	}
}

// flagLine is the line of the page's help block that defines flag name.
func flagLine(doc, name string) string {
	_, block, _ := strings.Cut(doc, helpBegin)
	block, _, _ = strings.Cut(block, helpEnd)
	for _, l := range strings.Split(block, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && (f[0] == "--"+name || len(f) > 1 && strings.HasSuffix(f[0], ",") && f[1] == "--"+name) {
			return l
		}
	}
	return ""
}
