package nodeverdict

import "fmt"

// CaptureError is a capture (a configz, metrics or crictl file) that could
// not be read. Line and Col are 1-based, and 0 when the error has no place
// in the file; Err is the decoder's own error, when there is one.
type CaptureError struct {
	File      string
	Line, Col int
	Msg       string
	Err       error
}

func (e *CaptureError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

func (e *CaptureError) Unwrap() error { return e.Err }

// captureError is a CaptureError with no place in the file.
func captureError(file, format string, args ...any) *CaptureError {
	return &CaptureError{File: file, Msg: fmt.Sprintf(format, args...)}
}
