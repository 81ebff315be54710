package featuregate_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/internal/splittest"
)

// conflicting-registration: the relisting package (registrations/kube)
// reports at its own entries and at those of the staging-like packages
// it imports. analysistest matches each package's diagnostics with the
// "// want" comments of that package's files only: crossPackage pairs a
// diagnostic reported from one package in another's file with the
// expectation left unmet there.
func TestConflictingRegistrations(t *testing.T) {
	dir := testdata(t)
	cross := newCrossPackage(splittest.Diagnostics(t), nil)
	results := analysistest.Run(cross, dir, featuregate.Analyzer, "registrations/...")
	cross.done()
	n := 0
	for _, r := range results {
		for _, d := range r.Diagnostics {
			if d.Category != string(featuregate.ConflictingRegistration) {
				continue // bothmaps' conflicting-spec: its "// want" says
			}
			here := r.Pass.Fset.Position(d.Pos)
			if r.Pass.Pkg.Path() != "registrations/kube/features" {
				t.Errorf("%s: reported from %s; the staging-like packages do not know who registers their gates again", here, r.Pass.Pkg.Path())
			}
			// Each has the other entry as its related position.
			if len(d.Related) != 1 {
				t.Errorf("%s: %d related positions, want 1", here, len(d.Related))
				continue
			}
			there := r.Pass.Fset.Position(d.Related[0].Pos)
			if !there.IsValid() || filepath.Dir(here.Filename) == filepath.Dir(there.Filename) {
				t.Errorf("%s: related %s, want the other package's entry", here, there)
			}
			n++
		}
	}
	if n != 4 { // none from testcontext: its map is built for a call
		t.Errorf("%d conflicting-registration diagnostics, want 4 (two conflicts, each at both entries)", n)
	}
}

// unannotated are expectations of fixture files shared with other tests,
// which carry no "// want" for them: gateshapes/unversioned, shaped like
// pkg/features before v1.31, relists the apiserver look-alike's gate,
// which is versioned, in its unversioned map; a versioned map needs
// component-base v1.31 or later, where Add keeps the spec at 0.0, not
// at 1.17: component-base refuses it.
var unannotated = map[string]string{
	"gateshapes/unversioned/kube_features.go:32":   `^feature gate "WatchBookmarks" with different spec already exists: \[\{true false  1.17\}\]: registered by k8s.io/apiserver/pkg/features, then by gateshapes/unversioned with \[\{true false  0.0\}\]`,
	"k8s.io/apiserver/pkg/features/features.go:20": `^feature gate "WatchBookmarks" with different spec already exists: \[\{true false  1.17\}\]: registered by k8s.io/apiserver/pkg/features, then by gateshapes/unversioned with \[\{true false  0.0\}\]`,
}

// crossPackage wraps analysistest's Testing: it holds back its complaints
// of an unexpected diagnostic and of an expectation no diagnostic met,
// and done pairs them, by file and line, where the expectation's pattern
// matches the diagnostic's message (a diagnostic that one package's pass
// reports in another package's file, where the comment is). Unpaired
// complaints, and all others, are passed on. extra holds expectations,
// "file:line" to pattern, for files that cannot carry a comment.
type crossPackage struct {
	t          analysistest.Testing
	mu         sync.Mutex
	unexpected []complaint
	unmet      []complaint
}

type complaint struct {
	at, text string // "file:line", the message or the pattern
	rx       *regexp.Regexp
	raw      string // analysistest's complaint
}

func newCrossPackage(t analysistest.Testing, extra map[string]string) *crossPackage {
	c := &crossPackage{t: t}
	for at, p := range extra {
		c.unmet = append(c.unmet, complaint{at: at, rx: regexp.MustCompile(p), raw: at + ": no diagnostic was reported matching " + p})
	}
	return c
}

var (
	unexpectedRx = regexp.MustCompile(`(?s)^(.*:\d+):\d+: unexpected diagnostic: (.*)$`)
	unmetRx      = regexp.MustCompile(`(?s)^(.*:\d+): no diagnostic was reported matching (.*)$`)
)

func (c *crossPackage) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := unexpectedRx.FindStringSubmatch(msg); m != nil {
		c.unexpected = append(c.unexpected, complaint{at: m[1], text: m[2], raw: msg})
		return
	}
	if m := unmetRx.FindStringSubmatch(msg); m != nil {
		if p, err := strconv.Unquote(m[2]); err == nil {
			if rx, err := regexp.Compile(p); err == nil {
				c.unmet = append(c.unmet, complaint{at: m[1], rx: rx, raw: msg})
				return
			}
		}
	}
	c.t.Errorf("%s", msg)
}

// done pairs the complaints held back and passes on those left.
func (c *crossPackage) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	met := make([]bool, len(c.unmet))
	for _, u := range c.unexpected {
		paired := false
		for i, e := range c.unmet {
			if !met[i] && e.at == u.at && e.rx.MatchString(u.text) {
				met[i], paired = true, true
				break
			}
		}
		if !paired {
			c.t.Errorf("%s", u.raw)
		}
	}
	for i, e := range c.unmet {
		if !met[i] {
			c.t.Errorf("%s", e.raw)
		}
	}
}
