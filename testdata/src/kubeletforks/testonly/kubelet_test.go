package testonly

import (
	"testing"
	"time"

	"k8s.io/kubernetes/pkg/kubelet/pleg"
)

// A test that wants an unhealthy PLEG: no finding, tests do this on purpose.
func TestUnhealthy(t *testing.T) {
	pleg.NewGenericPLEG(nil, &pleg.RelistDuration{RelistPeriod: time.Minute, RelistThreshold: time.Second}, time.Now)
}
