// The kubelet's configz and metrics, read through the API server's node
// proxy; a metrics request that gets no answer in time is a failure to
// decide from (a hung runtime), not the node's error.

package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/plegvet/plegvet/nodeverdict"
)

func proxyPath(node, path string) string {
	return "/api/v1/nodes/" + node + "/proxy/" + path
}

// configz reads the kubelet's /configz through the API server.
func (f *fleet) configz(ctx context.Context, node string) (*nodeverdict.Config, error) {
	ctx, cancel := f.opts.answerContext(ctx)
	defer cancel()
	// Stream, not DoRaw: its errors carry the API server's Status, which
	// names the permission a 403 lacks.
	body, err := f.client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("configz").Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("configz: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, maxConfigz+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("configz: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	case len(data) > maxConfigz:
		return nil, fmt.Errorf("configz: more than %d bytes; want the kubelet's configz", maxConfigz)
	}
	saved, err := f.save(node, "configz.json")
	if err != nil {
		return nil, err
	}
	saved.Write(data)
	if err := saved.Close(); err != nil {
		return nil, err
	}
	return nodeverdict.ReadConfigz(proxyPath(node, "configz"), data)
}

// maxConfigz bounds a configz body: a kubelet's is a few kilobytes.
const maxConfigz = 4 << 20

// metrics reads the kubelet's /metrics through the API server as a
// stream, keeping only the families the verdict reads; at is when the
// response arrived, the capture's time.
func (f *fleet) metrics(ctx context.Context, node string) (met *nodeverdict.Metrics, at time.Time, err error) {
	ctx, cancel := f.opts.metricsContext(ctx)
	defer cancel()
	began := time.Now().UTC()
	body, err := f.client.CoreV1().RESTClient().Get().Resource("nodes").Name(node).SubResource("proxy").Suffix("metrics").
		SetHeader("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1").Stream(ctx)
	if err != nil {
		if hung := f.metricsTimedOut(err, began); hung != nil {
			return nil, at, hung
		}
		return nil, at, fmt.Errorf("metrics: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	}
	defer body.Close()
	// The kubelet gathers its metrics before it answers.
	at = time.Now().UTC()
	saved, err := f.save(node, "metrics.txt")
	if err != nil {
		return nil, at, err
	}
	var in io.Reader = &cappedBody{r: body}
	if saved != nil {
		// First the capture's time, then the body as it comes, so that
		// plegvet node -metrics reads the same.
		saved.Write([]byte(nodeverdict.ScrapedAtComment + at.Format(time.RFC3339Nano) + "\n"))
		in = io.TeeReader(in, saved)
	}
	met, err = nodeverdict.ReadMetricsFrom(proxyPath(node, "metrics"), in)
	if serr := saved.Close(); err == nil && serr != nil {
		return nil, at, serr
	}
	if big := (*tooLarge)(nil); errors.As(err, &big) {
		return nil, at, fmt.Errorf("metrics: %s", big)
	}
	if err != nil && timedOut(err) {
		if hung := f.metricsTimedOut(err, began); hung != nil {
			// The body began and stopped: no capture (decide removes the
			// part saved).
			return nil, at, hung
		}
		return nil, at, fmt.Errorf("metrics: %s", explain(err, "get", "nodes/proxy", f.opts.Timeout))
	}
	if err == nil {
		// A failure saved by an earlier run is no longer this node's.
		err = f.unsave(node, "metrics-error.txt")
	}
	return met, at, err
}

// metricsTimedOut is a metrics request that got no answer in time (its
// bound ran out, or a proxy answered 504 Gateway Timeout) after the
// kubelet answered its configz: what a hung runtime does to the kubelet's
// /metrics. It is decided from, not an error row.
type metricsTimedOut struct {
	failure *nodeverdict.MetricsFailure
}

func (e *metricsTimedOut) Error() string { return e.failure.Error }

// metricsTimedOut is err as a metrics failure when it is a timeout of the
// request begun at began; nil when it is another error (refused, a
// status, the client's rate limiter), which stays the node's error.
func (f *fleet) metricsTimedOut(err error, began time.Time) *metricsTimedOut {
	bound, flag := f.opts.metricsBound()
	var text string
	switch {
	case limiterTimedOut(err):
		return nil
	case timedOut(err) && bound > 0:
		text = fmt.Sprintf("metrics: timed out after %s (%s): no answer came through the API server's node proxy", bound, flag)
	case timedOut(err):
		text = "metrics: timed out: no answer came through the API server's node proxy"
	case code(err) == http.StatusGatewayTimeout:
		msg := err.Error()
		if se := apierrors.APIStatus(nil); errors.As(err, &se) {
			msg = se.Status().Message
		}
		text = "metrics: gateway timeout (504), from the API server or a proxy before it: " + msg
	default:
		return nil
	}
	waited := time.Since(began).Round(time.Millisecond)
	return &metricsTimedOut{failure: nodeverdict.NewMetricsFailure(text, waited, &began)}
}
