package assemble

import (
	"testing"

	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/plegperiods"
)

// A gate set in code decides what a node that sets nothing runs, in the
// gate's default's place; writes that disagree, or one not read, leave it
// unknown.
func TestDefaultPLEGSetInCode(t *testing.T) {
	on, off := true, false
	write := func(v *bool) featuregates.GateWrite { return featuregates.GateWrite{Gate: "EventedPLEG", On: v} }
	for _, tc := range []struct {
		writes []featuregates.GateWrite
		want   string
	}{
		{nil, "generic"},
		{[]featuregates.GateWrite{write(&on)}, "evented"},
		{[]featuregates.GateWrite{write(&on), write(&on)}, "evented"},
		{[]featuregates.GateWrite{write(&off)}, "generic"},
		{[]featuregates.GateWrite{write(&on), write(&off)}, "unknown"},
		{[]featuregates.GateWrite{write(nil)}, "unknown"},
	} {
		r := &answer.Report{Relist: &plegperiods.Relist{Gate: &plegperiods.RelistGate{Name: "EventedPLEG"}, GateSetInCode: tc.writes}}
		r.FeatureGate = &answer.Gate{Effective: &answer.Spec{Default: false}}
		if got := defaultPLEG(r); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.writes, got, tc.want)
		}
	}
}
