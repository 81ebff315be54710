package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// completionUsage is plegvet help completion.
const completionUsage = `usage: plegvet completion bash|zsh|fish

Prints a script completing plegvet's subcommands, each one's flags, the
topics of plegvet help, and files and directories (packages) elsewhere.
The flags are read from the subcommands' own flag sets.

  bash:  source <(plegvet completion bash)          (in ~/.bashrc)
  zsh:   source <(plegvet completion zsh)           (in ~/.zshrc, after compinit)
  fish:  plegvet completion fish > ~/.config/fish/completions/plegvet.fish
`

// completion prints the completion script for a shell.
func completion(args []string, stdout, stderr io.Writer) int {
	shells := map[string]func(io.Writer){"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}
	if len(args) != 1 || shells[args[0]] == nil {
		got := "no shell"
		if len(args) > 0 {
			got = fmt.Sprintf("%q", strings.Join(args, " "))
		}
		return usageError(stderr, "completion", "want one shell, bash, zsh or fish; got %s (see plegvet help completion)", got)
	}
	shells[args[0]](stdout)
	return exitOK
}

// flagProbe is the stdout a subcommand is run with to get its flag set:
// parse hands the set to it instead of parsing (flagSetOf).
type flagProbe struct{ fs *flag.FlagSet }

func (*flagProbe) Write(p []byte) (int, error) { return len(p), nil }

// flagSetOf returns a subcommand's flag set, as its run function defines
// it: the one definition its -h, plegvet help, completion and the docs'
// test read. The subcommand stops at parse, having done nothing.
func flagSetOf(sc subcommand) *flag.FlagSet {
	probe := &flagProbe{}
	sc.run(context.Background(), nil, probe, io.Discard)
	if probe.fs == nil {
		panic("plegvet " + sc.name + " defines its flags without parse")
	}
	return probe.fs
}

// completionFlag is a flag as a completion script offers it.
type completionFlag struct {
	name, doc string
	value     bool // takes a value (-k8s v1.36.1), not a bool
}

func completionFlags(sc subcommand) []completionFlag {
	var flags []completionFlag
	flagSetOf(sc).VisitAll(func(f *flag.Flag) {
		b, isBool := f.Value.(interface{ IsBoolFlag() bool })
		flags = append(flags, completionFlag{f.Name, shortDoc(f.Usage), !isBool || !b.IsBoolFlag()})
	})
	return flags
}

// shortDoc is a flag's or subcommand's help up to its first clause, for a
// completion menu.
func shortDoc(s string) string {
	s = strings.ReplaceAll(s, "`", "")
	if i := strings.IndexAny(s, ";:("); i > 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > 70 {
		s = strings.TrimSpace(s[:67]) + "..."
	}
	return s
}

// helpTopics are what plegvet help takes.
func helpTopics() []string {
	return slices.Concat(commandNames(), []string{"completion"}, analyzerNames())
}

// firstWords are the words completed in the first position.
func firstWords() []string {
	return slices.Concat(commandNames(), []string{"help", "version", "completion"})
}

func bashCompletion(w io.Writer) {
	fmt.Fprintf(w, `# bash completion for plegvet: source <(plegvet completion bash)
_plegvet() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	COMPREPLY=()
	if [[ $COMP_CWORD -eq 1 ]]; then
		[[ $cur == -* ]] || COMPREPLY=($(compgen -W %q -- "$cur"))
		return
	fi
	case ${COMP_WORDS[1]} in
	help) [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W %q -- "$cur")) ;;
	completion) [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
`, strings.Join(firstWords(), " "), strings.Join(helpTopics(), " "))
	for _, sc := range subcommands() {
		var names []string
		for _, f := range completionFlags(sc) {
			names = append(names, "-"+f.name)
		}
		fmt.Fprintf(w, "\t%s) [[ $cur == -* ]] && COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", sc.name, strings.Join(names, " "))
	}
	fmt.Fprint(w, `	esac
}
# Nothing offered: files and directories (packages, a -C, a -configz).
complete -o default -F _plegvet plegvet
`)
}

// zshQuote quotes s for zsh in single quotes, and its colons for _describe.
func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, "'", `'\''`), ":", `\:`) + "'"
}

func zshCompletion(w io.Writer) {
	fmt.Fprint(w, `#compdef plegvet
# zsh completion for plegvet: source <(plegvet completion zsh)
_plegvet() {
	local -a items
	if (( CURRENT == 2 )); then
		if [[ $PREFIX != -* ]]; then
			items=(
`)
	for _, sc := range subcommands() {
		doc := sc.doc
		fmt.Fprintf(w, "\t\t\t\t%s\n", zshQuote(sc.name+":"+shortDoc(doc)))
	}
	fmt.Fprint(w, `				'help:a subcommand'\''s or an analyzer'\''s usage and flags'
				'version:the version plegvet was built from'
				'completion:a shell completion script'
			)
			_describe -t commands 'plegvet subcommand' items
		fi
		_files
		return
	fi
	case $words[2] in
`)
	fmt.Fprintf(w, "\thelp) (( CURRENT == 3 )) && compadd -- %s ;;\n", strings.Join(helpTopics(), " "))
	fmt.Fprint(w, "\tcompletion) (( CURRENT == 3 )) && compadd -- bash zsh fish ;;\n")
	for _, sc := range subcommands() {
		fmt.Fprintf(w, "\t%s)\n\t\tif [[ $PREFIX == -* ]]; then\n\t\t\titems=(\n", sc.name)
		for _, f := range completionFlags(sc) {
			fmt.Fprintf(w, "\t\t\t\t%s\n", zshQuote("-"+f.name+":"+f.doc))
		}
		fmt.Fprint(w, "\t\t\t)\n\t\t\t_describe -t flags 'flag' items\n\t\telse\n\t\t\t_files\n\t\tfi ;;\n")
	}
	fmt.Fprint(w, `	*) _files ;;
	esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
	_plegvet "$@"
else
	compdef _plegvet plegvet
fi
`)
}

// fishQuote quotes s for fish in single quotes.
func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func fishCompletion(w io.Writer) {
	fmt.Fprint(w, "# fish completion for plegvet: plegvet completion fish > ~/.config/fish/completions/plegvet.fish\n")
	fmt.Fprint(w, "complete -c plegvet -e\n")
	first := "__fish_use_subcommand"
	for _, sc := range subcommands() {
		doc := sc.doc
		fmt.Fprintf(w, "complete -c plegvet -n %s -a %s -d %s\n", first, sc.name, fishQuote(shortDoc(doc)))
	}
	fmt.Fprintf(w, "complete -c plegvet -n %s -a help -d %s\n", first, fishQuote("a subcommand's or an analyzer's usage and flags"))
	fmt.Fprintf(w, "complete -c plegvet -n %s -a version -d %s\n", first, fishQuote("the version plegvet was built from"))
	fmt.Fprintf(w, "complete -c plegvet -n %s -a completion -d %s\n", first, fishQuote("a shell completion script"))
	fmt.Fprintf(w, "complete -c plegvet -f -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(helpTopics(), " ")))
	fmt.Fprint(w, "complete -c plegvet -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, sc := range subcommands() {
		for _, f := range completionFlags(sc) {
			r := ""
			if f.value {
				r = " -r"
			}
			fmt.Fprintf(w, "complete -c plegvet -n '__fish_seen_subcommand_from %s' -o %s%s -d %s\n", sc.name, f.name, r, fishQuote(f.doc))
		}
	}
}
