package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plegvet/plegvet/tools/kubeletcheck/harness"
)

// faultKinds are -fault's values' kinds.
var faultKinds = map[string]harness.FaultKind{"stopped": harness.FaultStopped, "hung": harness.FaultFrozen, "slow-call": harness.FaultHeld, "latency": harness.FaultLatency}

// rewrite writes the document and its pictures from runs saved under
// dirs (harness.LoadRun), without running a kubelet: the rules are
// those the run saved (the repository's plegvet's when it saved none),
// the report and its ladder the repository's plegvet's; a scenario's
// settings not saved are the live command's for the same flags.
func rewrite(ctx context.Context, b *strings.Builder, dirs []string, fs []harness.Fault, gates map[string]bool, repo, captures string, st setting) error {
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	tmp, err := os.MkdirTemp("", "hungtable-from-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var runs []measured
	for _, dir := range dirs {
		run, lost, err := harness.LoadRun(dir)
		if err != nil {
			return fmt.Errorf("-from %s: %w", dir, err)
		}
		if want := faultKinds[st.fault]; run.Fault.Kind != want {
			return fmt.Errorf("-from %s: a run of the fault %q, not of -fault %s", dir, run.Fault.Kind, st.fault)
		}
		if run.Release == "" {
			run.Release = st.release
		} else if run.Release != st.release {
			return fmt.Errorf("-from %s: a run of %s, not of -k8s %s", dir, run.Release, st.release)
		}
		if run.Gates == nil && len(gates) > 0 {
			run.Gates = gates
		}
		runs = append(runs, measured{run: run, saved: dir, lost: lost})
	}
	rules, err := harness.AlertRules(ctx, repo, st.release, tmp)
	if err != nil {
		return err
	}
	if saved := runs[0].run.Rules; saved != "" {
		rules = filepath.Join(tmp, "saved-rules.yml")
		if err := os.WriteFile(rules, []byte(saved), 0o644); err != nil {
			return err
		}
	} else {
		runs[0].lost = append(runs[0].lost, "the rules table is what the repository's plegvet writes today")
	}
	rep, why := readReport(ctx, filepath.Join(tmp, "plegvet"), st.release)
	names, err := alertNames(rules)
	if err != nil {
		return err
	}
	for i := range runs {
		m := &runs[i]
		run := m.run
		f := run.Fault
		if f.Kind == harness.FaultLatency {
			m.h = (&harness.Parts{}).NewLatencyScenario(st.release, "", "", rules, f.Latency, f.Least, logf)
		} else {
			m.h = (&harness.Parts{}).NewHung(st.release, "", "", rules, logf)
			// An older save has not the fault's timing: the live
			// command's for the same flags.
			if f.Least == 0 && f.Most == 0 {
				if th, err := thresholdInForce(rep, run.Gates); err == nil {
					f = harness.FrozenPast(th)
					if run.Fault.Kind == harness.FaultStopped {
						f = harness.Stopped(th)
					}
				} else if len(fs) > 0 {
					f = fs[0]
				}
				f.Kind, f.Method = run.Fault.Kind, run.Fault.Method
				if f.Kind == harness.FaultHeld && f.Method == "" {
					f.Method = SlowMethod
				}
			}
		}
		run.Fault, m.h.Fault, m.h.Gates = f, f, run.Gates
		if run.Every != 0 {
			m.h.Every = run.Every
		}
		m.tl = run.Timeline(names)
		if captures != "" && f.Kind != harness.FaultStopped {
			if err := run.Keep(filepath.Join(captures, st.release, m.h.Name()), m.tl, f.Describe()); err != nil {
				return err
			}
		}
	}
	st.rules, st.rep, st.why = rules, rep, why
	return document(b, runs, st)
}
