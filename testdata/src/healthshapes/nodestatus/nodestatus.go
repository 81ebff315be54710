// Package nodestatus is a look-alike of the kubelet's node status
// setters, for the health rule: the Ready condition reads the errors the
// kubelet's runtime state reports.
package nodestatus

import "time"

// ReadyCondition returns a setter whose condition is false with the
// message of errs' error, when there is one.
func ReadyCondition(now func() time.Time, errs func() error) func() (bool, string) {
	return func() (bool, string) {
		if err := errs(); err != nil {
			return false, err.Error()
		}
		return true, "ready"
	}
}
