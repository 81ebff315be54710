package plegvet

import (
	"errors"
	"testing"
)

func TestUnknownGateErrorText(t *testing.T) {
	for _, c := range []struct {
		err  *UnknownGateError
		want string
	}{
		{&UnknownGateError{Name: "X", Where: "tree: the tree"}, `tree: the tree declares no feature gate "X"`},
		{&UnknownGateError{Name: "X", Releases: []string{"v1.30.0"}, DidYouMean: []string{"Y"}}, `v1.30.0 declares no feature gate "X"; did you mean Y?`},
		{&UnknownGateError{Name: "X", Releases: []string{"v1.30.0", "v1.31.0", "v1.32.0"}, DidYouMean: []string{"Y", "Z"}},
			`none of the 3 releases read (v1.30.0 to v1.32.0) declares a feature gate "X"; did you mean one of Y, Z?`},
	} {
		var err error = c.err
		var target *UnknownGateError
		if got := err.Error(); got != c.want || !errors.As(err, &target) {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}
