package nodeverdict

import "testing"

func TestRelease(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"v1.36.1", "v1.36.1"},
		{"1.36.1", "v1.36.1"},
		{"v1.36.10", "v1.36.10"},
		{"v1.36.1-eks-4f4795d", "v1.36.1"},
		{"v1.30.4+k3s1", "v1.30.4"},
		{"v1.37.0-alpha.1", "v1.37.0-alpha.1"},
		{"v1.37.0-alpha.1.120+0123abcd", "v1.37.0-alpha.1"},
		{"v1.37.0-rc.0", "v1.37.0-rc.0"},
		{"v1.36", ""},
		{"v2.0.0", ""},
		{"v1.036.1", ""},
		{"v1.36.1x", ""},
		{"", ""},
		{"latest", ""},
	} {
		got, err := Release(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("Release(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Release(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}
