package assemble

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble/nodeindex"
)

// A release that landed after the index was built (here: an index that
// ends at v1.36.5) is read from its source with the go command, hang
// chain and ladder included, exactly as the generator would have indexed
// it; with no go command on PATH it is one error naming the index's span
// and wrapping ErrNoGoCommand.
func TestReleaseAfterTheIndex(t *testing.T) {
	index := func() (map[string]nodeindex.Entry, error) {
		return map[string]nodeindex.Entry{"v1.36.5": {Release: "v1.36.5", NodeSource: []byte(`{"source":{"kubernetesVersion":"v1.36.5"}}`)}}, nil
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir())
	_, err := LoadNodeSource(context.Background(), Options{Index: index}, "v1.37.2")
	if !errors.Is(err, ErrNoGoCommand) || !strings.HasPrefix(err.Error(), "v1.37.2 is not in plegvet's index (releases v1.36.5 to v1.36.5), and its source cannot be fetched: ") {
		t.Errorf("without a go command: %v", err)
	}
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); testing.Short() && !ci {
		t.Skip("fetches a Kubernetes release")
	}
	t.Setenv("PATH", path)
	s, err := LoadNodeSource(context.Background(), Options{Index: index}, "v1.37.2")
	if err != nil {
		t.Fatal(err)
	}
	if s.Source.From != answer.FromSource || s.Hang == nil || s.Hang.Collector == "" || s.Hang.DeadlineAt == nil || s.Ladder == nil {
		t.Errorf("with a go command: from %q, hang %+v, ladder %v; want the source's, with its hang chain and ladder", s.Source.From, s.Hang, s.Ladder)
	}
}
