package plegvet

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/plegvet/plegvet/internal/load/workcount"
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
		w := workcount.Read().Since(before)
		return workcount.Counts{FilesParsed: w.FilesParsed, PackagesChecked: w.PackagesChecked} // what this test is about
	}
	if got, want := work(lookAlike), (workcount.Counts{FilesParsed: 6, PackagesChecked: 3}); got != want {
		t.Errorf("Inspect(%s): %+v, want %+v", lookAlike, got, want)
	}

	// The same tree, pkg/kubelet importing two packages it holds that the
	// answer does not read.
	dir := lookAlikeWith(t, lookAlike, map[string]string{
		"pkg/kubelet/zz_decoys.go":         "package kubelet\n\nimport (\n\t\"k8s.io/kubernetes/pkg/kubelet/cadvisor\"\n\t\"k8s.io/kubernetes/pkg/kubelet/cm\"\n)\n\nvar _ = cm.NewContainerManager\nvar _ = cadvisor.New\n",
		"pkg/kubelet/cm/cm.go":             "package cm\n\nfunc NewContainerManager() {}\n",
		"pkg/kubelet/cadvisor/cadvisor.go": "package cadvisor\n\nfunc New() {}\n",
	})
	if got, want := work(dir), (workcount.Counts{FilesParsed: 7, PackagesChecked: 3}); got != want {
		t.Errorf("Inspect of the look-alike with decoy imports: %+v, want %+v (the decoys' packages are not the answer's)", got, want)
	}

	// The same tree with the CRI API's Go package, which pkg/kubelet/pleg
	// imports (checked for its declarations, cut to the names selected),
	// and the CRI client runtimehang reads, which pkg/kubelet imports and
	// which selects a name of the API that pleg does not: the client is
	// type-checked after the API was cut. Each package is parsed and
	// checked once (issue 43: a checkout's report loaded its 17 packages
	// twice, the second time uncut).
	dir = lookAlikeWith(t, lookAlike, map[string]string{
		"staging/src/k8s.io/cri-api/go.mod":                       "module k8s.io/cri-api\n",
		"staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/types.go": "package v1\n\ntype Response struct{ Status *Status }\n\ntype Status struct{ Id string }\n\ntype VersionRequest struct{ Version string }\n\ntype Unreached struct{}\n",
		"staging/src/k8s.io/cri-client/go.mod":                    "module k8s.io/cri-client\n",
		"staging/src/k8s.io/cri-client/pkg/remote.go":             "package remote\n\nimport runtimeapi \"k8s.io/cri-api/pkg/apis/runtime/v1\"\n\nfunc Version() *runtimeapi.VersionRequest { return &runtimeapi.VersionRequest{} }\n",
		"pkg/kubelet/pleg/zz_cri.go":                              "package pleg\n\nimport runtimeapi \"k8s.io/cri-api/pkg/apis/runtime/v1\"\n\nfunc statusOf(r *runtimeapi.Response) string { return r.Status.Id }\n",
		"pkg/kubelet/zz_client.go":                                "package kubelet\n\nimport remote \"k8s.io/cri-client/pkg\"\n\nvar _ = remote.Version\n",
	})
	if got, want := work(dir), (workcount.Counts{FilesParsed: 10, PackagesChecked: 5}); got != want {
		t.Errorf("Inspect of the look-alike with the CRI API and client: %+v, want %+v (each package once)", got, want)
	}
}

// lookAlikeWith is a copy of the look-alike tree with files added (paths
// relative to the tree, slash-separated).
func lookAlikeWith(t *testing.T, lookAlike string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(lookAlike)); err != nil {
		t.Fatal(err)
	}
	for name, src := range files {
		name = filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
