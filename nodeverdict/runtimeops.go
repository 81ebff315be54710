// The kubelet's CRI calls, by operation_type: what relist and the
// runtime's health check call, and how those calls fared.

package nodeverdict

import (
	"maps"
	"slices"

	dto "github.com/prometheus/client_model/go"
)

// The operation types of the CRI calls the health of the PLEG rests on
// (pkg/kubelet/kuberuntime's instrumented runtime service): the global
// relist lists sandboxes, then containers, then (updateCache) asks the
// status of each pod that changed; the kubelet's runtime-up check asks
// the runtime's status every 5s; the node status update asks its
// version before it computes the Ready condition.
const (
	OpListPodSandbox   = "list_podsandbox"
	OpListContainers   = "list_containers"
	OpPodSandboxStatus = "podsandbox_status"
	OpContainerStatus  = "container_status"
	OpStatus           = "status"
	OpVersion          = "version"
)

// RuntimeOperation is how one operation_type of CRI call fared since the
// kubelet started. A nil field is a family the capture lacks, or a series
// it has not for this operation.
type RuntimeOperation struct {
	// Calls and Errors count the calls made and those that failed.
	Calls  *float64 `json:"calls"`
	Errors *float64 `json:"errors"`
	// Duration observes how long each call took, failed ones too; a call
	// that hangs is observed only when it returns.
	Duration *Histogram `json:"duration"`
}

// runtimeOperations reads the three families by operation_type; nil when
// the capture has none of them.
func (r *metricsReader) runtimeOperations() map[string]RuntimeOperation {
	out := map[string]RuntimeOperation{}
	set := func(op string, f func(*RuntimeOperation)) {
		o := out[op]
		f(&o)
		out[op] = o
	}
	for _, c := range []struct {
		name   string
		errors bool
	}{{MetricRuntimeOperations, false}, {MetricRuntimeOperationsErrors, true}} {
		fams := byOperation(r.fams[c.name])
		for _, op := range slices.Sorted(maps.Keys(fams)) {
			v := r.counterOf(c.name, fams[op])
			if v == nil {
				return nil
			}
			set(op, func(o *RuntimeOperation) {
				if c.errors {
					o.Errors = v
				} else {
					o.Calls = v
				}
			})
		}
	}
	durations := byOperation(r.histogramFamily(MetricRuntimeOperationsDuration))
	for _, op := range slices.Sorted(maps.Keys(durations)) {
		h := r.histogramOf(MetricRuntimeOperationsDuration, durations[op])
		if h == nil {
			return nil
		}
		set(op, func(o *RuntimeOperation) { o.Duration = h })
	}
	if len(out) == 0 || r.err != nil {
		return nil
	}
	return out
}

// byOperation splits a family into one family per operation_type label
// (series without one are left out), so that each is read as a whole.
func byOperation(f *dto.MetricFamily) map[string]*dto.MetricFamily {
	if f == nil {
		return nil
	}
	out := map[string]*dto.MetricFamily{}
	for _, m := range f.GetMetric() {
		op := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "operation_type" {
				op = l.GetValue()
			}
		}
		if op == "" {
			continue
		}
		if out[op] == nil {
			out[op] = &dto.MetricFamily{Name: f.Name, Type: f.Type}
		}
		out[op].Metric = append(out[op].Metric, m)
	}
	return out
}

// Operations lists the operation types m has, sorted.
func (m *Metrics) Operations() []string {
	return slices.Sorted(maps.Keys(m.RuntimeOperations))
}
