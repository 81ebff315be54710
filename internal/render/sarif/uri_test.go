package sarif_test

import (
	"bytes"
	"github.com/plegvet/plegvet/answer"
	"net/url"
	"path"
	"testing"

	sarifv210 "github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/render/sarif"
)

// A relative path is written as a URI reference (RFC 3986), which
// percent-decoding turns back into the file's name: spaces, '%', bytes
// that are not UTF-8, and a colon that would read as a scheme.
func TestURIsArePercentEncoded(t *testing.T) {
	for file, want := range map[string]string{
		"pkg/features/kube_features.go":          "pkg/features/kube_features.go",
		"pkg/features/kube features \xff\xfe.go": "pkg/features/kube%20features%20%FF%FE.go",
		"pkg/features/100%.go":                   "pkg/features/100%25.go",
		"a:b.go":                                 "./a:b.go",
	} {
		var buf bytes.Buffer
		ds := []answer.Diagnostic{{Category: "c", Message: "m", Pos: sarif.Pos{File: file, Line: 1, Column: 1}}}
		if err := sarif.Write(&buf, sarif.Run{Version: "test", Rules: suite.Rules(), Results: ds}); err != nil {
			t.Fatal(err)
		}
		log, err := sarifv210.FromBytes(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		uri := *log.Runs[0].Results[0].Locations[0].PhysicalLocation.ArtifactLocation.URI
		if uri != want {
			t.Errorf("%q: uri %q, want %q", file, uri, want)
		}
		if back, err := url.Parse(uri); err != nil || path.Clean(back.Path) != file {
			t.Errorf("%q: uri %q reads back as %v, %v", file, uri, back, err)
		}
	}
}
