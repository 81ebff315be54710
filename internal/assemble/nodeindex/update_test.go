package nodeindex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/internal/load/release"
)

// A run stopped part way leaves the entries it computed in the file, and
// the next run computes only the others; what it ends with is the same
// bytes as a run never stopped, and as a second run over the same
// releases. Progress says releases done of all, the bytes fetched and
// the time left. A pre-release the go command refuses for its Go version
// is left out, said; any other failure is the run's error.
func TestUpdateResumes(t *testing.T) {
	releases := []string{"v1.30.0", "v1.30.1", "v1.31.0", "v1.32.0-rc.0"}
	var computed []string
	compute := func(stopAt string) func(context.Context, string) (json.RawMessage, error) {
		return func(_ context.Context, r string) (json.RawMessage, error) {
			if r == stopAt {
				return nil, fmt.Errorf("%s: %w", r, context.Canceled)
			}
			computed = append(computed, r)
			return json.RawMessage(`{"source":{"kubernetesVersion":"` + r + `"}}`), nil
		}
	}
	dir := t.TempDir()
	whole, stopped := filepath.Join(dir, "whole.jsonl"), filepath.Join(dir, "stopped.jsonl")
	if err := Update(context.Background(), Options{File: whole, Releases: releases, Compute: compute("")}); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(whole)

	computed = nil
	err := Update(context.Background(), Options{File: stopped, Releases: releases, Compute: compute("v1.31.0")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: err %v", err)
	}
	if got, _ := os.ReadFile(stopped); !bytes.Equal(got, want[:bytes.Index(want, []byte(`{"release":"v1.31.0"`))]) {
		t.Errorf("a stopped run left\n%s\nwant the entries before the stop", got)
	}
	computed = nil
	var progress bytes.Buffer
	if err := Update(context.Background(), Options{File: stopped, Releases: releases, Compute: compute(""), Progress: &progress, Fetched: func() int64 { return 3 << 20 }}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(stopped); !bytes.Equal(got, want) || strings.Join(computed, " ") != "v1.31.0 v1.32.0-rc.0" {
		t.Errorf("resumed: computed %v, file\n%s\nwant\n%s", computed, got, want)
	}
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != 4 || !regexp.MustCompile(`^\[1/4\] v1\.30\.0: kept; fetched 3\.0 MiB so far; \d+s elapsed$`).MatchString(lines[0]) ||
		!regexp.MustCompile(`^\[3/4\] v1\.31\.0: \d+ bytes; fetched 3\.0 MiB so far; \d+s elapsed, about \d+s left$`).MatchString(lines[2]) {
		t.Errorf("progress:\n%s", progress.String())
	}
	// The same releases computed again: the same bytes.
	if err := Update(context.Background(), Options{File: whole, All: true, Releases: releases, Compute: compute("")}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(whole); !bytes.Equal(again, want) {
		t.Errorf("a second run wrote\n%s\nthe first\n%s", again, want)
	}

	// Go too old for the pre-release: left out, said; the run succeeds.
	tooOld := func(_ context.Context, r string) (json.RawMessage, error) {
		if r == "v1.32.0-rc.0" {
			return nil, fmt.Errorf("%s: %w", r, release.ErrGoTooOld)
		}
		return json.RawMessage(`{}`), nil
	}
	progress.Reset()
	fresh := filepath.Join(dir, "fresh.jsonl")
	if err := Update(context.Background(), Options{File: fresh, Releases: releases, Compute: tooOld, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if got, _ := Read(must(os.ReadFile(fresh))); len(got) != 3 || !strings.Contains(progress.String(), "[4/4] v1.32.0-rc.0: not indexed: v1.32.0-rc.0: "+release.ErrGoTooOld.Error()) {
		t.Errorf("Go too old: %d entries\n%s", len(got), progress.String())
	}
}

func must(data []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return data
}
