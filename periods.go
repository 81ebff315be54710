package plegvet

import (
	"context"
	"fmt"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/internal/suite"
)

// The packages the relist answer reads, relative to the tree's module.
const (
	KubeletPackage = "pkg/kubelet"
	PlegPackage    = "pkg/kubelet/pleg"
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
	rep, err := analysedPeriods(a)
	if err != nil {
		return nil, err
	}
	noteUnfollowed(&rep.Source, rep.Diagnostics)
	return rep, nil
}

// analysedPeriods reads the pleg analyzer's outcome on pkg/kubelet.
func analysedPeriods(a *analysed) (*PeriodsReport, error) {
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
