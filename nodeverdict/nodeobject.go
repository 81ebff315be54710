// The Node object, as the API server holds it: what the kubelet last
// posted of itself (its version, its runtime's) and its Ready condition,
// which says whether the kubelet declared its runtime down or its PLEG
// unhealthy. It answers when the kubelet's own /metrics does not.

package nodeverdict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// nodeWant is what a Node object file should be.
const nodeWant = "the Node object as JSON, the output of kubectl get node NAME -o json"

// NodeStatus is what plegvet reads of a Node object.
type NodeStatus struct {
	Name string `json:"name"`
	// KubeletVersion and ContainerRuntimeVersion are status.nodeInfo's
	// (v1.37.2, containerd://2.1.4); "" when absent.
	KubeletVersion          string `json:"kubeletVersion"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	// Ready is the Ready condition; null when the object has none.
	Ready *Condition `json:"ready"`
}

// Condition is a node condition.
type Condition struct {
	// Status is True, False or Unknown.
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// LastHeartbeatTime is when the kubelet last posted it, and
	// LastTransitionTime when Status last changed; null when absent.
	LastHeartbeatTime  *time.Time `json:"lastHeartbeatTime"`
	LastTransitionTime *time.Time `json:"lastTransitionTime"`
}

// nodeObject is the part of a Node object (or of a List holding one)
// that is read. The API's own types are not imported for it: plegvet's
// module keeps client-go and k8s.io/api out (the kubectl plugin, its own
// module, has them and writes this file with them).
type nodeObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Status struct {
		NodeInfo struct {
			KubeletVersion          string `json:"kubeletVersion"`
			ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
		} `json:"nodeInfo"`
		Conditions []struct {
			Type               string `json:"type"`
			Status             string `json:"status"`
			Reason             string `json:"reason"`
			Message            string `json:"message"`
			LastHeartbeatTime  string `json:"lastHeartbeatTime"`
			LastTransitionTime string `json:"lastTransitionTime"`
		} `json:"conditions"`
	} `json:"status"`
	Items []json.RawMessage `json:"items"`
}

// ReadNode reads a Node object (kubectl get node NAME -o json), or a List
// holding exactly one. name is the file's, for errors.
func ReadNode(name string, data []byte) (*NodeStatus, error) {
	var o nodeObject
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("%s: %v; want %s", name, jsonError(data, err), nodeWant)
	}
	if o.Kind == "List" || o.Kind == "NodeList" {
		if len(o.Items) != 1 {
			return nil, fmt.Errorf("%s: a %s of %d items; want one Node (%s)", name, o.Kind, len(o.Items), nodeWant)
		}
		return ReadNode(name, o.Items[0])
	}
	if o.Kind != "Node" {
		return nil, fmt.Errorf("%s: kind %q; want %s", name, printable(shortValue(o.Kind)), nodeWant)
	}
	n := &NodeStatus{Name: o.Metadata.Name, KubeletVersion: o.Status.NodeInfo.KubeletVersion, ContainerRuntimeVersion: o.Status.NodeInfo.ContainerRuntimeVersion}
	for _, c := range o.Status.Conditions {
		if c.Type != "Ready" {
			continue
		}
		if n.Ready != nil {
			return nil, fmt.Errorf("%s: two Ready conditions; want %s", name, nodeWant)
		}
		rc := &Condition{Status: c.Status, Reason: c.Reason, Message: c.Message}
		for _, t := range []struct {
			text string
			to   **time.Time
			key  string
		}{{c.LastHeartbeatTime, &rc.LastHeartbeatTime, "lastHeartbeatTime"}, {c.LastTransitionTime, &rc.LastTransitionTime, "lastTransitionTime"}} {
			if t.text == "" {
				continue
			}
			at, err := time.Parse(time.RFC3339, t.text)
			if err != nil {
				return nil, fmt.Errorf("%s: the Ready condition's %s %q is not an RFC 3339 time; want %s", name, t.key, printable(shortValue(t.text)), nodeWant)
			}
			at = at.UTC()
			*t.to = &at
		}
		switch c.Status {
		case "True", "False", "Unknown":
		default:
			return nil, fmt.Errorf("%s: the Ready condition's status %q; want True, False or Unknown", name, printable(shortValue(c.Status)))
		}
		n.Ready = rc
	}
	return n, nil
}

// jsonError names where in data a JSON error is, when it says.
func jsonError(data []byte, err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Sprintf("line %d: %v", line, err)
	}
	return err.Error()
}

// ReadyReading is what a Ready condition's message says of the runtime
// and the PLEG.
type ReadyReading struct {
	// RuntimeDown: the message says the runtime is down.
	RuntimeDown bool
	// PLEGUnhealthy: the message says the PLEG is not healthy; Elapsed
	// and Threshold are the kubelet's own figures when the message gives
	// them in the source's words ("" else).
	PLEGUnhealthy      bool
	Elapsed, Threshold string
}

// ReadReady reads a Ready condition's message with the kubelet's words
// from its source (w): a failed PLEG check begins with w.NotHealthy()
// ("PLEG is not healthy: "), its message past the threshold is
// w.StaleFormat (two %v: the elapsed time, the threshold), and a runtime
// down is said w.RuntimeDown; each not read when not known.
func ReadReady(message string, w HealthWords) ReadyReading {
	var r ReadyReading
	notHealthy, stale := w.NotHealthy(), w.StaleFormat
	r.RuntimeDown = w.RuntimeDown != "" && strings.Contains(message, w.RuntimeDown)
	if notHealthy == "" {
		return r
	}
	i := strings.Index(message, notHealthy)
	if i < 0 {
		return r
	}
	r.PLEGUnhealthy = true
	if re := formatPattern(stale); re != nil {
		if m := re.FindStringSubmatch(message[i+len(notHealthy):]); m != nil {
			r.Elapsed, r.Threshold = m[1], m[2]
		}
	}
	return r
}

// formatPattern matches a format with two %v, each a Go duration; nil for
// a format of another shape.
func formatPattern(format string) *regexp.Regexp {
	parts := strings.Split(format, "%v")
	if len(parts) != 3 || strings.Contains(strings.Join(parts, ""), "%") {
		return nil
	}
	return regexp.MustCompile("^" + regexp.QuoteMeta(parts[0]) + `([0-9][0-9a-zµ.]*)` + regexp.QuoteMeta(parts[1]) + `([0-9][0-9a-zµ.]*)` + regexp.QuoteMeta(parts[2]))
}
