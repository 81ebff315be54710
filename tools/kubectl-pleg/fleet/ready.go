package fleet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/plegvet/plegvet/nodeverdict"
)

// ReadyCondition is the node's Ready condition as the API server holds
// it (from the node list: no request more), beside plegvet's health of
// its PLEG.
type ReadyCondition struct {
	Status             string     `json:"status"`
	Reason             string     `json:"reason"`
	Message            string     `json:"message"`
	LastHeartbeatTime  *time.Time `json:"lastHeartbeatTime"`
	LastTransitionTime *time.Time `json:"lastTransitionTime"`
	// PLEGUnhealthy says that the condition is False with the kubelet's
	// PLEG health error in its message; null when the kubelet's words are
	// not known from the source, so that the message cannot be matched.
	PLEGUnhealthy *bool `json:"plegUnhealthy"`
	// Agrees says whether plegvet's health agrees with the condition;
	// null when either cannot tell. Why says how, and, when they
	// disagree, which is newer: the scrape or the condition's heartbeat.
	Agrees *bool  `json:"agrees"`
	Why    string `json:"why"`
	// Newer is, when they disagree, which is newer: "scrape" or
	// "condition" (its last heartbeat); "" when not known.
	Newer string `json:"newer,omitempty"`
}

// maxConditionMessage bounds what is kept of a condition's message, so
// that a node costs a few hundred bytes whatever its kubelet says.
const maxConditionMessage = 512

// cutMessage is a condition's message cut to maxConditionMessage bytes.
func cutMessage(m string) string {
	if len(m) > maxConditionMessage {
		return strings.ToValidUTF8(m[:maxConditionMessage], "") + "…"
	}
	return m
}

// readyCondition is the node's Ready condition; nil when it has none.
func readyCondition(n *corev1.Node) *ReadyCondition {
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady {
			continue
		}
		r := &ReadyCondition{Status: string(c.Status), Reason: c.Reason, Message: cutMessage(c.Message)}
		if !c.LastHeartbeatTime.IsZero() {
			t := c.LastHeartbeatTime.UTC()
			r.LastHeartbeatTime = &t
		}
		if !c.LastTransitionTime.IsZero() {
			t := c.LastTransitionTime.UTC()
			r.LastTransitionTime = &t
		}
		return r
	}
	return nil
}

// judge puts the condition beside plegvet's health h, computed at the
// capture's time at; words are the kubelet's from its source: how its
// runtime errors begin for a failed PLEG check, and how they say the
// runtime is down ("" when not known).
func (r *ReadyCondition) judge(h nodeverdict.Health, at time.Time, words nodeverdict.HealthWords) {
	notHealthy := words.NotHealthy()
	r.Agrees, r.PLEGUnhealthy, r.Newer = nil, nil, ""
	if notHealthy != "" {
		said := r.Status == string(corev1.ConditionFalse) && strings.Contains(r.Message, notHealthy)
		r.PLEGUnhealthy = &said
	}
	set := func(agrees bool, why string) {
		r.Agrees, r.Why = &agrees, why
	}
	stale := h.State == nodeverdict.Unhealthy
	switch {
	case r.Status == string(corev1.ConditionUnknown):
		r.Why = "Ready is Unknown: the kubelet stopped posting its status" + since(r.LastTransitionTime)
	case h.State == nodeverdict.HealthUnknown:
		r.Why = "plegvet cannot tell the PLEG's health from the scrape (its evidence says why)"
	case r.PLEGUnhealthy == nil && r.Status == string(corev1.ConditionFalse) && !stale:
		r.Why = "Ready is False" + since(r.LastTransitionTime) + ", but whether for the PLEG cannot be read: the kubelet's words are not known from the source"
	case r.PLEGUnhealthy == nil && stale:
		set(true, "Ready is False"+since(r.LastTransitionTime)+", and plegvet computes the PLEG unhealthy (the message is not matched: the kubelet's words are not known from the source)")
	case r.PLEGUnhealthy != nil && *r.PLEGUnhealthy && stale:
		set(true, "both say the PLEG is not healthy")
	case stale && r.Status == string(corev1.ConditionFalse) && words.RuntimeDown != "" && strings.Contains(r.Message, words.RuntimeDown):
		set(true, "the condition says the container runtime is down, and plegvet computes the PLEG unhealthy")
	case stale:
		set(false, "plegvet computes the PLEG unhealthy, but the condition does not say so: "+r.newer(at, "the kubelet has not posted the failure yet", "the PLEG relisted again after the scrape"))
	case r.PLEGUnhealthy != nil && *r.PLEGUnhealthy:
		set(false, "the condition says the PLEG is not healthy, but plegvet computes it "+h.State+": "+r.newer(at, "the PLEG relisted again since the kubelet last posted its status", "the PLEG stalled after the scrape"))
	case r.Status == string(corev1.ConditionFalse):
		set(true, "Ready is False for another reason than the PLEG; plegvet computes the PLEG "+h.State)
	default:
		set(true, "Ready is True, and plegvet computes the PLEG "+h.State)
	}
}

// newer sets Newer, the newer of the scrape at and the condition's last
// heartbeat, and says what that means either way.
func (r *ReadyCondition) newer(at time.Time, scrapeNewer, conditionNewer string) string {
	hb := r.LastHeartbeatTime
	switch {
	case hb == nil:
		return "the condition has no heartbeat time to tell which is newer"
	case at.After(*hb):
		r.Newer = "scrape"
		return fmt.Sprintf("the scrape (%s) is newer than the condition's last heartbeat (%s): %s", at.Format(time.RFC3339), hb.Format(time.RFC3339), scrapeNewer)
	}
	r.Newer = "condition"
	return fmt.Sprintf("the condition's last heartbeat (%s) is newer than the scrape (%s): %s", hb.Format(time.RFC3339), at.Format(time.RFC3339), conditionNewer)
}

func since(t *time.Time) string {
	if t == nil {
		return ""
	}
	return " since " + t.Format(time.RFC3339)
}

// readyText is the READY column: the condition's status, and whether it
// agrees with plegvet's health.
func readyText(r *ReadyCondition) string {
	if r == nil {
		return "-"
	}
	switch {
	case r.Agrees == nil:
		return r.Status
	case *r.Agrees:
		return r.Status + ", agrees"
	case r.Newer != "":
		return r.Status + ", disagrees: " + r.Newer + " newer"
	}
	return r.Status + ", disagrees"
}

// healthText is the HEALTH column: plegvet's state, and the time since
// the last relist when known.
func healthText(h nodeverdict.Health) string {
	d, err := time.ParseDuration(h.Elapsed)
	if err != nil {
		return h.State
	}
	return h.State + " " + d.Round(time.Second).String()
}
