package plegvet

import (
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/internal/assemble"
)

// Positions says how an answer names its files.
type Positions = assemble.Positions

// The forms of Positions (assemble.PositionsRelative and so on: relative
// to the checkout, in the module cache, by web address at the release's
// tag).
const (
	PositionsRelative = assemble.PositionsRelative
	PositionsModule   = assemble.PositionsModule
	PositionsURL      = assemble.PositionsURL
)

// KubernetesRepoURL is where PositionsURL points: the kubernetes
// repository, whose tags are the releases.
const KubernetesRepoURL = assemble.KubernetesRepoURL

// ParsePositions reads a -positions value: relative, module, url, or ""
// for the default of the source read (DefaultPositions).
func ParsePositions(s string) (Positions, error) { return assemble.ParsePositions(s) }

// DefaultPositions is the form a user can open for the source read: a
// release's files by URL, a checkout's relative to it.
func DefaultPositions(src Source) Positions { return assemble.DefaultPositions(src) }

// Located is an answer that names files (answer.Located).
type Located = answer.Located

// RelocatePositions rewrites, in place, every file name an answer carries
// in its JSON (answer.Located: each position's file and each "file" key)
// into the form p names for the source src it was read from. answer is
// a *Report, *GatesReport, *PeriodsReport, *RPCReport, *NodeReport,
// *RuntimeReport, or a *GateAtRelease of a gate history. "" is
// DefaultPositions(src). Messages that cite a file:line in prose keep the
// tree's relative names.
func RelocatePositions(answer Located, src Source, p Positions) error {
	return assemble.RelocatePositions(answer, src, p)
}
