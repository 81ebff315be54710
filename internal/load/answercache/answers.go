package answercache

import (
	"fmt"
	"go/build"
	"maps"
	"slices"
	"strings"

	answers "github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/load/tree"
)

// Answer answers a question about a fetched release t from dir ("":
// none), or computes the answer and keeps it there. The key is the running
// program's build ID, the question and every module's go.sum hash: the
// same program, asked the same of the same content, answers the same, so
// a kept answer is the one compute would return. A checkout (no sums), a
// module without a hash, a program without a build ID, or an answer that
// is an error: nothing is kept, compute runs.
func Answer[T any](dir string, t *tree.Tree, question []string, compute func() (*T, error)) (*T, error) {
	if dir == "" {
		return compute()
	}
	key, ok := TreeKey(t, question)
	if !ok {
		return compute()
	}
	var kept T
	if Get(dir, key, &kept) && keptWhole(&kept, t) {
		return &kept, nil
	}
	answer, err := compute()
	if err != nil {
		return nil, err
	}
	// An answer with a file not read or a construct not followed is not
	// kept: the cause may pass (a file unreadable for a moment, too many
	// open files), and the next run should try again.
	if !complete(answer) {
		return answer, nil
	}
	// A cache that cannot be written costs the next run its time, not
	// this one its answer.
	_ = Put(dir, key, answer)
	return answer, nil
}

// keptWhole reports whether a kept answer holds what a computed answer of
// the tree always holds: an entry that decodes but says less (null, {},
// a bare schema version) is computed again, not served.
func keptWhole(v any, t *tree.Tree) bool {
	switch a := v.(type) {
	case *answers.Report:
		return a.SchemaVersion == answers.SchemaVersion && sourceWhole(a.Source, t) && a.Error == "" &&
			a.DefaultPLEG != "" && a.Summary != ""
	case *answers.GatesReport:
		return a.SchemaVersion == answers.SchemaVersion && sourceWhole(a.Source, t) && len(a.Gates) > 0
	}
	return true
}

// sourceWhole: the source a release's answer names, read from source.
func sourceWhole(s answers.Source, t *tree.Tree) bool {
	return s.Dir == t.Module+"@"+t.Version && s.KubernetesVersion == t.Version && s.Load.Mode != ""
}

// complete reports whether an answer read every file and followed every
// construct, and has no registration conflicts (which its JSON holds only
// in words); only those are kept.
func complete(v any) bool {
	switch a := v.(type) {
	case *answers.Report:
		return a.Source.Load.Complete() && len(a.Conflicts) == 0
	case *answers.GatesReport:
		return a.Source.Load.Complete() && len(a.Conflicts) == 0
	}
	return true
}

// TreeKey is the key of a question about a fetched release t: the
// schema, the build's tool tags, the release and every module's go.sum
// hash. It reports false for a tree without sums (a checkout) or with a
// module whose hash is unknown, and for a program without a build ID.
func TreeKey(t *tree.Tree, question []string) (string, bool) {
	if len(t.Sums) == 0 {
		return "", false
	}
	// The build context's tool tags come from the environment
	// (GOEXPERIMENT, GOAMD64) and decide which files build.
	parts := append([]string{fmt.Sprint("schema ", answers.SchemaVersion), "tags " + strings.Join(build.Default.ToolTags, ","), t.Module + "@" + t.Version}, question...)
	// Staging modules present without a hash (none today) would make the
	// key say less than the tree holds.
	for m := range t.Modules {
		if t.Sums[m] == "" {
			return "", false
		}
	}
	for _, m := range slices.Sorted(maps.Keys(t.Sums)) {
		if t.Sums[m] == "" {
			return "", false
		}
		parts = append(parts, m+" "+t.Sums[m])
	}
	return Key(parts...)
}
