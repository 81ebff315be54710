package plegvet

import (
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble"
)

// Positions says how an answer names its files.
type Positions = assemble.Positions

// The forms of Positions (assemble.PositionsRelative and so on): every
// form keeps each file's checkout name; a release's positions also carry
// their web address at the release's tag, module adds the file on disk,
// and url has text print the web address instead of the name.
const (
	PositionsRelative = assemble.PositionsRelative
	PositionsModule   = assemble.PositionsModule
	PositionsURL      = assemble.PositionsURL
)

// KubernetesRepoURL is where a release's positions point: the kubernetes
// repository, whose tags are the releases.
const KubernetesRepoURL = assemble.KubernetesRepoURL

// ParsePositions reads a -positions value: relative, module, url, or ""
// for relative.
func ParsePositions(s string) (Positions, error) { return assemble.ParsePositions(s) }

// FileLink is the address of a file of src at a line: at the release's
// tag for a release, a file: URL (no line) for a checkout. A terminal
// makes each printed position a link to it.
func FileLink(src answer.Source) func(file string, line int) string { return assemble.FileLink(src) }

// RelocatePositions sets, in place, where each position an answer holds
// can be opened (answer.Located): its URL for a release, and the file on
// disk (Path) for PositionsModule. Each position's File keeps the
// checkout's name in every form. located is one of package answer's
// reports: a *Report, *GatesReport, *PeriodsReport, *RPCReport,
// *NodeReport, *RuntimeReport, *Alerts, or a *GateAtRelease of a gate
// history.
func RelocatePositions(located answer.Located, src answer.Source, p Positions) error {
	return assemble.RelocatePositions(located, src, p)
}
