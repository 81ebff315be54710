// The reasons about the gate: configz, the source's default, the
// kubelet's own word in its metrics, its version, and what the gate being
// on means in the release's design.

package nodeverdict

import (
	"fmt"
)

func (d *decider) gate() {
	g := d.in.Gate
	set := fmt.Sprintf("kubeletconfig.featureGates.%s = %t", g.Name, g.Value)
	if g.Explicit && g.Default == nil {
		// A kubelet refuses to start with a gate it does not know.
		d.disagree(fmt.Sprintf("configz sets %s, which the source has no spec of at %s: a kubelet refuses gates it does not know, so this source is not the node's kubelet", g.Name, g.defaultAt()),
			set+"; "+g.SpecWords)
	}
	if !g.Built {
		d.agreeConfig(Generic, fmt.Sprintf("the kubelet's source at %s builds no evented PLEG: the generic PLEG runs whatever %s says", g.defaultAt(), g.Name), g.TestWords)
		if g.Explicit && g.Value && g.Default != nil {
			d.note(fmt.Sprintf("configz turns %s on, which this kubelet's source does not act on", g.Name), set)
		}
		return
	}
	state := "off"
	if g.On() {
		state = "on"
	}
	claim := fmt.Sprintf("%s is off: configz leaves it unset, and the source has no spec of it at %s", g.Name, g.defaultAt())
	evidence := fmt.Sprintf("no %s in kubeletconfig.featureGates; %s", g.Name, g.SpecWords)
	switch {
	case g.Explicit:
		claim = fmt.Sprintf("%s is %s: configz sets it", g.Name, state)
		evidence = fmt.Sprintf("%s; the source's default at %s: %s", set, g.defaultAt(), g.SpecWords)
	case g.SetInCode != nil:
		claim = fmt.Sprintf("%s is %s: configz leaves it unset, and the kubelet's code sets it to %t", g.Name, state, *g.SetInCode)
		evidence = fmt.Sprintf("no %s in kubeletconfig.featureGates; %s, over the source's default at %s: %s", g.Name, g.SetInCodeAt, g.defaultAt(), g.SpecWords)
	case g.Default != nil:
		claim = fmt.Sprintf("%s is %s: configz leaves it unset, and its default at %s is %t", g.Name, state, g.defaultAt(), *g.Default)
	}
	if g.TestWords != "" {
		evidence += "; " + g.TestWords
	}
	d.agreeConfig(d.configured, claim, evidence)
}

// featureMetric reads the kubelet's own word on the gate first:
// kubernetes_feature_enabled carries its effective value, the default
// applied, so it settles what configz leaves unsaid. Where it disagrees
// with configz and the source's default, one of them is not this node's.
// It reports whether the metrics had the gate.
func (d *decider) featureMetric() bool {
	g, m := d.in.Gate, d.in.Metrics
	st, ok := m.FeatureEnabled[g.Name]
	if !ok {
		return false
	}
	sample := fmt.Sprintf("%s{name=%q,stage=%q} %d", MetricFeatureEnabled, g.Name, st.Stage, btoi(st.Enabled))
	state := map[bool]string{true: "on", false: "off"}
	if st.Enabled != g.On() {
		from := "configz leaves it unset"
		if g.Explicit {
			from = fmt.Sprintf("configz sets it to %t", g.Value)
		} else if g.SetInCode != nil {
			from += fmt.Sprintf(" and the kubelet's code sets it to %t (%s)", *g.SetInCode, g.SetInCodeAt)
		} else if g.Default != nil {
			from += fmt.Sprintf(" and the source's default at %s is %t", g.defaultAt(), *g.Default)
		}
		d.disagree(fmt.Sprintf("the kubelet reports %s %s, but %s", g.Name, state[st.Enabled], from), sample)
		return true
	}
	points := Generic
	if st.Enabled && g.Built {
		points = Evented
	}
	d.agreeConfig(points, fmt.Sprintf("the kubelet reports %s %s", g.Name, state[st.Enabled]), sample)
	return true
}

// noFeatureMetric says the kubelet's own word is missing, after the
// configz-and-source reason that then decides.
func (d *decider) noFeatureMetric() {
	g, m := d.in.Gate, d.in.Metrics
	why := fmt.Sprintf("no %s metric (a kubelet before v1.26, or a scrape without it)", MetricFeatureEnabled)
	if m.FeatureEnabled != nil {
		why = fmt.Sprintf("%s has no sample for %s", MetricFeatureEnabled, g.Name)
	}
	d.note(fmt.Sprintf("the kubelet's metrics do not say whether %s is on: configz and the source's default decide", g.Name), why)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// version notes a kubelet that does not say its release, and a kubelet
// version that differs from the metrics' own.
func (d *decider) version() {
	g := d.in.Gate
	if g.VersionUnknown != "" {
		d.note(fmt.Sprintf("the kubelet does not say which release it was built from: the gate's default is read at %s, the source's", g.defaultAt()), g.VersionUnknown)
		return
	}
	if g.SourceVersion != "" {
		d.note(fmt.Sprintf("the source read is %s, another patch of the kubelet's %s: the same minor, so the same PLEG design; the gate's default is read at %s", g.SourceVersion, g.KubeletVersion, g.defaultAt()),
			fmt.Sprintf("the kubelet is %s; the source k8s.io/kubernetes@%s", g.KubeletVersion, g.SourceVersion))
	}
	mv := d.in.Metrics.KubeletVersion
	if mv == "" || mv == g.defaultAt() {
		return
	}
	d.note(fmt.Sprintf("the gate is read at %s, not at the %s the metrics report", g.defaultAt(), mv),
		fmt.Sprintf("%s{git_version=%q}", MetricBuildInfo, mv))
}

// design says what the gate being on means in this release's source: an
// event source, a relist trigger, or a design plegvet does not know.
func (d *decider) design() {
	p := d.in.Periods
	if d.configured != Evented {
		return
	}
	why := p.RoleWhy
	if why == "" {
		why = "the evented PLEG's role in the source: " + p.Role
	}
	switch p.Role {
	case RoleRelistTrigger:
		d.note("in this release the evented PLEG only asks the generic PLEG to relist: the generic PLEG alone emits pod lifecycle events", why)
	case RoleEventSource, "":
	default:
		d.note("this release's evented PLEG matches no design plegvet knows: the verdict says only that the gate is on", why)
	}
}
