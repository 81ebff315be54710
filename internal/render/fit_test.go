package render

import (
	"bytes"
	"strings"
	"testing"
)

// A long line breaks between words, its further lines under its value
// column; a word wider than the room left is never cut.
func TestFitLine(t *testing.T) {
	pos := "staging/src/k8s.io/component-base/featuregate/feature_gate.go:123:45"
	url := "https://github.com/kubernetes/kubernetes/blob/v1.36.1/pkg/kubelet/pleg/generic.go#L310"
	for _, c := range []struct {
		name, line string
		width      int
		want       []string
	}{{
		name:  "fits",
		line:  "Relist        gate off: relist 1s",
		width: 40,
		want:  []string{"Relist        gate off: relist 1s"},
	}, {
		name:  "a label's value wraps under the value",
		line:  "Consequence   a PLEG whose relist stops succeeding turns the node NotReady after 3m0s",
		width: 40,
		want: []string{
			"Consequence   a PLEG whose relist stops",
			"              succeeding turns the node",
			"              NotReady after 3m0s",
		},
	}, {
		name:  "an indented line keeps its indentation",
		line:  "              last successful relist against gate off 3m0s",
		width: 40,
		want:  []string{"              last successful relist", "              against gate off 3m0s"},
	}, {
		name:  "a position wider than the room goes whole on its own line",
		line:  "Health        check at " + pos + " always",
		width: 50,
		want:  []string{"Health        check at", "    " + pos, "              always"},
	}, {
		name:  "an indented word too wide under its indentation is hung at 4",
		line:  "              " + pos,
		width: 70,
		want:  []string{"    " + pos},
	}, {
		name:  "a URL is never cut",
		line:  "files at " + url,
		width: 40,
		want:  []string{"files at", "    " + url},
	}, {
		name:  "a flag's usage under its tab",
		line:  "    \tanalyse this Kubernetes release (v1.36.1), fetched with the go command",
		width: 50,
		want:  []string{"    \tanalyse this Kubernetes release (v1.36.1),", "    \tfetched with the go command"},
	}, {
		name:  "a table row's tail hung at 4 where it does not fit under its column",
		line:  "EventedPLEG  v1.25.16  Alpha  false  pkg/features/kube_features.go:994 (and a note)",
		width: 60,
		want:  []string{"EventedPLEG  v1.25.16  Alpha  false", "    pkg/features/kube_features.go:994 (and a note)"},
	}, {
		name:  "a table row's tail under its last column, where it fits",
		line:  "EventedPLEG  v1.25.16  Alpha  false  pkg/features/kube_features.go:994 (and a note)",
		width: 72,
		want:  []string{"EventedPLEG  v1.25.16  Alpha  false  pkg/features/kube_features.go:994", "                                     (and a note)"},
	}} {
		got := FitLine(c.line, c.width)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// The Fitter fits each line written, whatever the writes' boundaries.
func TestFitter(t *testing.T) {
	var b bytes.Buffer
	f := Fit(&b, 26)
	for _, s := range []string{"short\nlabel  one two thr", "ee four five six\nlast"} {
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "short\nlabel  one two three four\n       five six\nlast"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
