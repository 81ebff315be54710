// What a failed request says to the user: the RBAC permission a 403
// lacks, the kubelet a 503 could not reach, the timeout run past.

package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// explain turns a request's error into one line that says what failed and
// what to do: the RBAC permission a 403 lacks, the kubelet a 503 could not
// reach, the timeout a slow kubelet ran past.
func explain(err error, verb, resource string, timeout time.Duration) string {
	var se apierrors.APIStatus
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Status().Message
	}
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("forbidden: missing RBAC permission %q on %q (the ClusterRole in kubectl-pleg's README grants it): %s", verb, resource, msg)
	case apierrors.IsUnauthorized(err):
		return "unauthorized: the credentials of this kubeconfig context were refused: " + msg
	case apierrors.IsNotFound(err) && resource == "nodes":
		return "not found: " + msg
	case apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) && resource == "nodes/proxy":
		return fmt.Sprintf("the API server could not reach the kubelet (%d): %s", code(err), msg)
	case timedOut(err) || limiterTimedOut(err):
		if limiterTimedOut(err) {
			return fmt.Sprintf("timed out after %s (--request-timeout) waiting for the client's rate limiter (--qps)", timeout)
		}
		if timeout > 0 {
			return fmt.Sprintf("timed out after %s (--request-timeout)", timeout)
		}
		return "timed out"
	case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err):
		return "the API server timed out: " + msg
	}
	var e apierrors.APIStatus
	if errors.As(err, &e) {
		return fmt.Sprintf("%s (%d)", msg, code(err))
	}
	return msg
}

func code(err error) int32 {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return se.Status().Code
	}
	return 0
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
