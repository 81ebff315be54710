// Package answer is the JSON form of plegvet's answers: plain data, the
// same after a JSON round trip. The root package plegvet computes them and
// aliases every type here; internal/render puts them into words. It
// imports the extractors whose types are parts of an answer, and nothing
// that loads or analyses.
package answer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/srcpos"
)

// SchemaVersion is the version of the JSON form of every result. It
// changes only when a key is removed or changes meaning. 2: a position's
// "file" is always the file's path as in a checkout (relative, with /);
// a release's positions hold their web address in "url", and
// -positions=module adds "path", the file on disk (in 1, "file" itself
// held the address or the path).
const SchemaVersion = 2

// Pos is a position in the tree: File relative to the checkout root.
type Pos = srcpos.Pos

// FileVisitor is called with each file name an answer holds (Located).
type FileVisitor = srcpos.FileVisitor

// Source says what was analysed and how it was loaded.
type Source struct {
	// Dir is the checkout as the user named it, or module@version for a
	// fetched release.
	Dir               string `json:"dir"`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// From says where a node verdict's source answer came from: FromIndex
	// or FromSource. Empty in the other answers, always read from source.
	From string `json:"from,omitempty"`
	Load Load   `json:"load"`
}

// KubernetesRepoURL is the kubernetes repository, whose tags are the
// releases: where a release's positions point.
const KubernetesRepoURL = "https://github.com/kubernetes/kubernetes"

// TreeURL is the web address of a release's tree at its tag, which its
// relative file names are under ("https://.../blob/v1.36.1"); "" for a
// checkout.
func (s Source) TreeURL() string {
	if s.Release() == "" {
		return ""
	}
	return KubernetesRepoURL + "/blob/" + s.Release()
}

// Release is the Kubernetes release the source is, when it was fetched
// as the module k8s.io/kubernetes at a release's version (or read from
// plegvet's index of releases); "" for a checkout.
func (s Source) Release() string {
	if s.KubernetesVersion != "" && s.Dir == "k8s.io/kubernetes@"+s.KubernetesVersion {
		return s.KubernetesVersion
	}
	return ""
}

// Where a node verdict's source answer came from (Source.From).
const (
	// FromIndex: plegvet's index of releases, computed from each
	// release's source by plegvet itself when it was built.
	FromIndex = "index"
	// FromSource: the source, read for this answer (or kept from such a
	// read in the answer cache).
	FromSource = "source"
)

// Load says how packages were type-checked.
type Load struct {
	// Mode is "source": the needed packages type-checked from source,
	// their other imports stubbed.
	Mode string `json:"mode"`
	// Modelled are imports answered by plegvet's built-in models of their API.
	Modelled []string `json:"modelled"`
	// Stubbed counts the imports answered by empty packages; expressions
	// that reach into them are untyped, and what depends on them is
	// reported as unresolved.
	Stubbed int `json:"stubbed"`
	// Problems are files that could not be read or parsed in full; the
	// rest was analysed.
	Problems []string `json:"problems"`
	// Unfollowed are constructs plegvet read but could not follow (a gate
	// test it could not trace to a gate, a feature map entry it could not
	// read), each "FILE:LINE:COL: why"; they are also diagnostics. Like
	// Problems, they mean the answer is not whole: the command exits 1.
	Unfollowed []string `json:"unfollowed"`
	// Copies name the modules read from another copy than
	// staging/src/MODULE, each "MODULE: DIR, why": the copy the go command
	// builds, a go.work's use or replace, or a vendored one (vendor
	// mode). Absent when every staging module was read from staging/src.
	Copies []string `json:"copies,omitempty"`
}

// Diagnostic is one finding of a check.
type Diagnostic struct {
	Category string    `json:"category"`
	Message  string    `json:"message"`
	Pos      Pos       `json:"pos"`
	End      *Pos      `json:"end,omitempty"`
	Related  []Related `json:"related"`
	Fixes    []Fix     `json:"fixes,omitempty"`
}

// Fix is a suggested fix: edits to apply together.
type Fix struct {
	Message string `json:"message"`
	Edits   []Edit `json:"edits"`
}

// Edit replaces the text from Pos to End with NewText.
type Edit struct {
	Pos     Pos    `json:"pos"`
	End     Pos    `json:"end"`
	NewText string `json:"newText"`
}

// Related is a position that explains a diagnostic.
type Related struct {
	Message string `json:"message"`
	Pos     Pos    `json:"pos"`
	// End is where the explaining span ends (nil: at Pos), for an
	// editor's range (the language server). The JSON leaves it out: the
	// JSON form and SARIF's related locations stay as they were.
	End *Pos `json:"-"`
}

// Complete says that every file was read and every construct followed.
func (l Load) Complete() bool { return len(l.Problems) == 0 && len(l.Unfollowed) == 0 }

// SortDiagnostics orders diagnostics by file, position and check.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(strings.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Column, b.Pos.Column), strings.Compare(a.Category, b.Category))
	})
}
