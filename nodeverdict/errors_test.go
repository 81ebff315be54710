package nodeverdict

import (
	"encoding/json"
	"errors"
	"testing"
)

// A capture's error says where in the file, as fields a caller can read.
func TestCaptureError(t *testing.T) {
	_, err := ReadConfigz("c.json", []byte("{\n  \"kubeletconfig\": x}"))
	var ce *CaptureError
	var se *json.SyntaxError
	if !errors.As(err, &ce) || ce.File != "c.json" || ce.Line != 2 || ce.Col != 20 || !errors.As(err, &se) {
		t.Errorf("configz syntax error = %#v", err)
	}
	_, err = ReadMetrics("m.txt", []byte("kubelet_pleg_last_seen_seconds 1\nbad line here\n"))
	if !errors.As(err, &ce) || ce.File != "m.txt" || ce.Line != 2 || ce.Col != 0 || ce.Err == nil {
		t.Errorf("metrics syntax error = %#v", err)
	}
	_, err = ReadCrictl("v.json", []byte(`{"runtimeApiVersion": "v1"}`))
	if !errors.As(err, &ce) || ce.File != "v.json" || ce.Line != 0 || ce.Msg == "" || ce.Err != nil {
		t.Errorf("crictl error = %#v", err)
	}
	if err.Error() != "v.json: "+ce.Msg {
		t.Errorf("Error() = %q, Msg = %q", err.Error(), ce.Msg)
	}
}
