package plegvet

import (
	"context"
	"fmt"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/suite"
	"github.com/plegvet/plegvet/plegperiods"
)

// The packages the relist answer reads, relative to the tree's module.
const (
	KubeletPackage = "pkg/kubelet"
	PlegPackage    = "pkg/kubelet/pleg"
)

// PeriodsReport is the relist periods a tree's kubelet runs with.
type PeriodsReport struct {
	SchemaVersion int    `json:"schemaVersion"`
	Source        Source `json:"source"`
	Relist        Relist `json:"relist"`
	// Diagnostics are the pleg analyzer's findings.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// The relist answer's parts are the pleg analyzer's own.
type (
	// Relist is the two modes of the kubelet's PLEG.
	Relist = plegperiods.Relist
	// RelistGate names the gate and where it is tested.
	RelistGate = plegperiods.RelistGate
	// UnresolvedGate is the test deciding the evented PLEG that could not
	// be followed to a feature gate.
	UnresolvedGate = plegperiods.UnfollowedTest
	// Mode is what runs with the gate off: the generic relist.
	Mode = plegperiods.Mode
	// GateOnMode is what runs with the gate on.
	GateOnMode = plegperiods.GateOnMode
	// Value is a duration resolved to its constant, or why it could not be.
	Value = plegperiods.Value
	// RetryCount is the evented PLEG's stream retries.
	RetryCount = plegperiods.RetryCount
)

// Periods follows the PLEG relist periods of a tree's kubelet, in both
// states of the EventedPLEG gate, and checks the relist safety net.
func Periods(ctx context.Context, opts Options) (*PeriodsReport, error) {
	t, src, err := open(ctx, opts, false)
	if err != nil {
		return nil, err
	}
	a, err := analyse(ctx, t, src, suite.FromSource, FeaturesPackage, PlegPackage, KubeletPackage)
	if err != nil {
		return nil, err
	}
	rep, err := a.periods()
	if err != nil {
		return nil, err
	}
	rep.Source.noteUnfollowed(rep.Diagnostics)
	return rep, nil
}

// periods reads the pleg analyzer's outcome on pkg/kubelet.
func (a *analysed) periods() (*PeriodsReport, error) {
	out, err := a.outcome(pleg.Analyzer, KubeletPackage)
	if err != nil {
		return nil, err
	}
	res := out.Result.(*pleg.Result)
	if res.Relist == nil {
		return nil, fmt.Errorf("%s: %s builds no PLEG: no call of a constructor of %s (NewGenericPLEG, NewEventedPLEG) was found%s", a.src.Dir, KubeletPackage, PlegPackage, a.unreadIn(KubeletPackage, PlegPackage))
	}
	return &PeriodsReport{SchemaVersion: SchemaVersion, Source: a.src, Relist: *res.Relist, Diagnostics: diagnostics(a.res.Fset, out.Diagnostics)}, nil
}
