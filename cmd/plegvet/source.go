package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/render"
)

// sourceFlags are the flags every subcommand shares: which tree, and how
// to print.
type sourceFlags struct {
	k8s, dir   string
	json, yaml bool
	pre        bool // -pre-releases
	positions  plegvet.Positions
}

// newSourceFlags is a subcommand's flag set, with the flags it shares.
func newSourceFlags(name string, withYAML bool) (*flag.FlagSet, *sourceFlags) {
	fs, s := flag.NewFlagSet(name, flag.ContinueOnError), &sourceFlags{}
	fs.StringVar(&s.k8s, "k8s", "", "analyse this Kubernetes `release` (v1.36.1), fetched with the go command, instead of a checkout")
	fs.BoolVar(&s.pre, "pre-releases", false, "with -k8s, a range (v1.36.0..v1.38.0) or a minor (v1.38) also takes the pre-releases the module proxy serves (alpha, beta, rc): a minor with no release within the range gives its newest pre-release; without it, releases only. A pre-release named in full (v1.38.0-beta.0) is fetched either way")
	fs.StringVar(&s.dir, "C", ".", "analyse the Kubernetes checkout rooted at this `dir`")
	fs.BoolVar(&s.json, "json", false, "print JSON")
	positions := positionsUsage
	if name == "alerts" {
		positions = alertsPositionsUsage
	}
	fs.Func("positions", positions, func(v string) (err error) {
		s.positions, err = plegvet.ParsePositions(v)
		return err
	})
	if withYAML {
		fs.BoolVar(&s.yaml, "yaml", false, "print the gates as the tree's feature-list tool writes versioned_feature_list.yaml (hack/update-featuregates.sh's bytes)")
	}
	return fs, s
}

// positionsUsage is -positions' help, as RelocatePositions and output.print
// name files (docs/usage.md#positions).
const positionsUsage = "how text names files, `relative|module|url`: relative, the checkout's names (the default, for a release too: its tag is named once at the top, and on a terminal each position links to its line); module, the file on disk (the checkout's, or the module cache's for -k8s); url, the file's address at the release's tag (-k8s only). JSON keeps the relative name in file, adding url for a release and path with module (docs/usage.md#positions)"

// alertsPositionsUsage is alerts' -positions help: a rules file, read
// where no checkout is at hand, names a release's files by address.
const alertsPositionsUsage = "how the rules name files, `relative|module|url`: url, the file's address at the release's tag (the default for -k8s); relative, the checkout's names (the default for a checkout); module, the file on disk (the checkout's, or the module cache's for -k8s)"

func (s *sourceFlags) options(stderr io.Writer) plegvet.Options {
	return plegvet.Options{Dir: s.dir, Kubernetes: s.k8s, CacheDir: plegvet.DefaultCacheDir(), Fetch: s.fetch(stderr)}
}

// fetch is how -k8s is fetched: the environment's limit, and whether
// ranges and minors take pre-releases.
func (s *sourceFlags) fetch(stderr io.Writer) plegvet.FetchOptions {
	o := fetchOptions(stderr)
	o.PreReleases = s.pre
	return o
}

// relocate names the files of an answer's positions as -positions says,
// for the source it was read from.
func (s *sourceFlags) relocate(answer answer.Located, src answer.Source) error {
	if err := plegvet.RelocatePositions(answer, src, s.positions); err != nil {
		return fmt.Errorf("-%w", err)
	}
	return nil
}

// parse parses a subcommand's flags, also where they follow its arguments
// (gates EventedPLEG -k8s v1.37.2), and returns the arguments. -h prints
// the usage on stdout (exit 0); a bad command line is one line on stderr
// (exit 2). ok is false when the subcommand should return code.
func parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (rest []string, code int, ok bool) {
	fs.SetOutput(io.Discard)
	if p, ok := stdout.(*flagProbe); ok {
		p.fs = fs
		return nil, exitOK, false
	}
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				sc, _ := lookup(fs.Name())
				_ = fitted(stdout, func(w io.Writer) error {
					fmt.Fprintf(w, "usage: %s\n\n%s\n\nFlags:\n", wrapSynopsis(synopsisWords(sc), "        ", render.FitTo(w, 78, 7)), wrap(sc.doc, render.FitTo(w, 72, 0)))
					fs.SetOutput(w)
					fs.PrintDefaults()
					fs.SetOutput(io.Discard)
					return nil
				})(stdout)
				return nil, exitOK, false
			}
			return nil, usageError(stderr, fs.Name(), "%v (see plegvet %s -h)", err, fs.Name()), false
		}
		args = fs.Args()
		i := 0
		for i < len(args) && !isFlag(args[i]) {
			i++
		}
		rest = append(rest, args[:i]...)
		if i == len(args) {
			break
		}
		if args[i] == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		args = args[i:]
	}
	if flagSet(fs, "k8s") && flagSet(fs, "C") {
		return nil, usageError(stderr, fs.Name(), "-k8s and -C exclude each other: -k8s analyses a release, -C a checkout (see plegvet %s -h)", fs.Name()), false
	}
	return rest, exitOK, true
}

func isFlag(arg string) bool { return len(arg) > 1 && arg[0] == '-' }

// parseNoArgs parses a subcommand that takes flags only.
func parseNoArgs(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (int, bool) {
	rest, code, ok := parse(fs, args, stdout, stderr)
	if !ok {
		return code, false
	}
	if len(rest) > 0 {
		return usageError(stderr, fs.Name(), "unexpected argument %q (see plegvet %s -h)", rest[0], fs.Name()), false
	}
	return exitOK, true
}

// flagSet reports whether the command line set the named flag.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// writeJSON writes v indented, its answers' file names in their JSON form
// (withJSONNames).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return withJSONNames(v, func() error { return enc.Encode(v) })
}

// answer prints a subcommand's result as JSON or as text, then the files
// that did not load in full; it returns the exit code.
func printAnswer(cmd string, stdout, stderr io.Writer, out output, result any, text func(io.Writer) error, src answer.Source) int {
	if err := out.print(stdout, result, text, &src); err != nil {
		return fail(stderr, cmd, err)
	}
	return problems(stderr, cmd, src)
}

// usageError prints a wrong command line's one error line for a
// subcommand.
func usageError(stderr io.Writer, cmd, format string, args ...any) int {
	fmt.Fprintf(stderr, "plegvet %s: %s\n", cmd, fmt.Sprintf(format, args...))
	return exitUsage
}

// fail prints one error line for a subcommand.
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "plegvet %s: %s\n", cmd, errorLine(flagWords(err)))
	if errors.Is(err, plegvet.ErrListAndRange) {
		return exitUsage // the -k8s argument's form, known before any fetch
	}
	return exitFailure
}

// optionFlags names the flag that sets each library option.
var optionFlags = map[string]string{
	"Kubernetes":     "-k8s",
	"Dir":            "-C",
	"Proto":          "-proto",
	"KubeletVersion": "-kubelet-version",
	"Configz":        "-configz",
	"Metrics":        "-metrics",
	"Crictl":         "-crictl",
}

// flagWords words a library error for the command line: the library names
// its options and says what is missing; the command line names the flag
// and what to pass.
func flagWords(err error) string {
	msg := err.Error()
	var oe *plegvet.OptionError
	if errors.As(err, &oe) {
		if flag, ok := optionFlags[oe.Option]; ok {
			msg = strings.Replace(msg, oe.Error(), flag+" "+oe.Err.Error(), 1)
		}
	}
	switch {
	case errors.Is(err, plegvet.ErrKubeletVersionUnknown):
		msg += "; pass -kubelet-version v1.X.Y"
	case errors.Is(err, plegvet.ErrNoCRIAPI):
		msg += "; pass -proto FILE"
	}
	return msg
}

// writeText prints text output with the control characters of its
// inputs escaped.
func writeText(w io.Writer, text func(io.Writer) error) error {
	ew := &escapingWriter{w: w}
	if err := text(ew); err != nil {
		return err
	}
	return ew.Flush()
}
