package plegvet

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/plegvet/plegvet/internal/workcount"
)

// The report's lean load type-checks only the packages the answer needs:
// on the look-alike tree pkg/features, pkg/kubelet/pleg and pkg/kubelet
// (3 packages, their 6 files parsed once), and nothing more when
// pkg/kubelet imports packages of the tree that no part of the answer
// reads (pkg/kubelet/cm, pkg/kubelet/cadvisor: stubbed, not parsed).
// Work is counted, not timed (issue 43); not parallel, since the counts
// are the process's.
func TestInspectChecksOnlyWhatTheAnswerNeeds(t *testing.T) {
	const lookAlike = "testdata/src/k8s.io/kubernetes"
	work := func(dir string) workcount.Counts {
		t.Helper()
		before := workcount.Read()
		if _, err := Inspect(context.Background(), Options{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		return workcount.Read().Since(before)
	}
	if got, want := work(lookAlike), (workcount.Counts{FilesParsed: 6, PackagesChecked: 3}); got != want {
		t.Errorf("Inspect(%s): %+v, want %+v", lookAlike, got, want)
	}

	// The same tree, pkg/kubelet importing two packages it holds that the
	// answer does not read.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(lookAlike)); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{
		"pkg/kubelet/zz_decoys.go":         "package kubelet\n\nimport (\n\t\"k8s.io/kubernetes/pkg/kubelet/cadvisor\"\n\t\"k8s.io/kubernetes/pkg/kubelet/cm\"\n)\n\nvar _ = cm.NewContainerManager\nvar _ = cadvisor.New\n",
		"pkg/kubelet/cm/cm.go":             "package cm\n\nfunc NewContainerManager() {}\n",
		"pkg/kubelet/cadvisor/cadvisor.go": "package cadvisor\n\nfunc New() {}\n",
	} {
		name = filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := work(dir), (workcount.Counts{FilesParsed: 7, PackagesChecked: 3}); got != want {
		t.Errorf("Inspect of the look-alike with decoy imports: %+v, want %+v (the decoys' packages are not the answer's)", got, want)
	}
}
