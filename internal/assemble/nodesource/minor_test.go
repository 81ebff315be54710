package nodesource_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble/nodesource"
	"github.com/plegvet/plegvet/nodeverdict"
)

// A real v1.37.2 kubelet's capture decided with the source of another
// release (plegvet's index answer for it, as -k8s would name it): another
// minor is refused, since v1.36's evented PLEG emits events where v1.37's
// only asks for relists; another patch of v1.37 is a note.
func TestDecideAgainstAnotherRelease(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "nodeverdict", "testdata", "real", "v1.37.2", "gate-on-debian")
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	cfg, err := nodeverdict.ReadConfigz("configz.json", read("configz.json"))
	if err != nil {
		t.Fatal(err)
	}
	met, err := nodeverdict.ReadMetrics("005.txt", read("005.txt"))
	if err != nil {
		t.Fatal(err)
	}
	decide := func(release, kubelet string) (*answer.NodeReport, error) {
		src, err := plegvet.LoadNodeSource(context.Background(), plegvet.Options{}, release)
		if err != nil {
			t.Fatal(err)
		}
		return src.Decide(plegvet.NodeCapture{Config: cfg, Metrics: met, KubeletVersion: kubelet})
	}
	_, err = decide("v1.36.5", "")
	want := `^kubernetes_build_info's git_version is v1.37.2, of another minor than the source read, k8s.io/kubernetes@v1.36.5: the minor decides the PLEG's design; want a source of v1.37, such as the kubelet's own release \(read when no source is named\)$`
	if !errors.Is(err, nodesource.ErrOtherMinor) || !regexp.MustCompile(want).MatchString(err.Error()) {
		t.Errorf("v1.36.5's source: %v; want %s", err, want)
	}
	// The kubelet version given decides which release the kubelet is.
	if _, err := decide("v1.36.5", "v1.36.9"); err != nil {
		t.Errorf("v1.36.5's source, kubelet v1.36.9 given: %v", err)
	}
	rep, err := decide("v1.37.0", "")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != nodeverdict.FellBack {
		t.Errorf("v1.37.0's source: %s; want %s", rep.Verdict, nodeverdict.FellBack)
	}
	note := "the source read is v1.37.0, another patch of the kubelet's v1.37.2: the same minor, so the same PLEG design; the gate's default is read at v1.37.2"
	found := false
	for _, r := range rep.Reasons {
		found = found || r.Claim == note && r.Agrees == nil
	}
	if !found {
		t.Errorf("v1.37.0's source: no note %q among %+v", note, rep.Reasons)
	}
}
