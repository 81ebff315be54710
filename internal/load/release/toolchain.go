// A module the go command refused for its own Go version: the one line
// that says so, with the go command's words and what to do.

package release

import (
	"fmt"
	"regexp"
)

// requiresGo is how the go command refuses a module whose go line is
// newer than itself under a GOTOOLCHAIN that keeps it from switching:
// "k8s.io/kubernetes@v1.38.0-beta.0 requires go >= 1.27.0 (running go
// 1.26.8; GOTOOLCHAIN=local)".
var requiresGo = regexp.MustCompile(`requires go >= ([0-9][0-9A-Za-z.+-]*) \(running go ([^;)]+); GOTOOLCHAIN=([^)]*)\)`)

// goTooOld is such a refusal: errors.Is finds ErrGoTooOld and
// ErrProxyRefused.
type goTooOld string

func (e goTooOld) Error() string { return string(e) }
func (goTooOld) Is(target error) bool {
	return target == ErrGoTooOld || target == ErrProxyRefused
}

// toolchainRefusal is the error for module (module@version), when why,
// the go command's words, refuses it for the go command's Go version;
// nil otherwise. plegvet does not set GOTOOLCHAIN for its go command
// (docs/what-plegvet-touches.md): switching downloads and runs another
// Go toolchain, the user's choice, so the line says how to choose it.
func toolchainRefusal(module, why string) error {
	m := requiresGo.FindStringSubmatch(why)
	if m == nil {
		return nil
	}
	return goTooOld(fmt.Sprintf("cannot fetch %s with the go command: %s; want a go command of Go %s or later (on PATH, or GOTOOLCHAIN=auto, with which the go command fetches it from the module proxy)",
		module, why, m[1]))
}
