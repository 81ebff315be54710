package buildenv

import (
	"slices"
	"testing"
)

func TestDeclaresFeatureMap(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"feature map", `package f
import "k8s.io/component-base/featuregate"
var m = map[featuregate.Feature]featuregate.FeatureSpec{}`, true},
		{"renamed import", `package f
import fg "k8s.io/component-base/featuregate"
var m = map[fg.Feature][]fg.Feature{}`, true},
		{"a use, no map", `package f
import "k8s.io/component-base/featuregate"
const X featuregate.Feature = "X"`, false},
		{"another package's Feature", `package f
import (
	_ "k8s.io/component-base/featuregate"
	featuregate "example.com/other"
)
var m = map[featuregate.Feature]bool{}`, false},
		{"does not parse", `package f
import "k8s.io/component-base/featuregate"
var m = map[featuregate.Feature`, false},
	} {
		if got := DeclaresFeatureMap([]byte(c.src)); got != c.want {
			t.Errorf("%s: DeclaresFeatureMap = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSetTagsReplacesGOFLAGSTags(t *testing.T) {
	t.Setenv("GOFLAGS", "-mod=mod -tags=old")
	SetTags("a,b")
	if got, want := Flags(), []string{"-mod=mod", "-tags=a,b"}; !slices.Equal(got, want) {
		t.Skipf("GOFLAGS read before the test set it (go env is read once a process): %q", got)
	}
	if got := Tags(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Tags() = %q, want [a b]", got)
	}
}
