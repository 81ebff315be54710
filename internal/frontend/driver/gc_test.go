package driver

import (
	"os"
	"runtime/debug"
	"testing"
)

// The lean load's collector settings are set for the load and put back
// after, and GOGC or GOMEMLIMIT set by the user win.
func TestLeanGC(t *testing.T) {
	percent := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	for _, tc := range []struct {
		name                   string
		env                    map[string]string
		wantPercent, wantLimit bool
	}{
		{"neither set", nil, true, true},
		{"GOGC set", map[string]string{"GOGC": "150"}, false, true},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "2GiB"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unsetenv(t, "GOGC")
			unsetenv(t, "GOMEMLIMIT")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			p0, l0 := percent(), limit()
			restore := leanGC()
			if got := percent() == leanGCPercent; got != tc.wantPercent {
				t.Errorf("GC percent %d during the lean load", percent())
			}
			if got := limit() == leanMemoryLimit; got != tc.wantLimit {
				t.Errorf("memory limit %d during the lean load", limit())
			}
			restore()
			restore() // twice: the deferred call after the fallback's
			if percent() != p0 || limit() != l0 {
				t.Errorf("after: GC percent %d, memory limit %d; want %d, %d as before", percent(), limit(), p0, l0)
			}
		})
	}
}

// unsetenv unsets an environment variable for the test (t.Setenv puts it
// back after).
func unsetenv(t *testing.T, key string) {
	t.Helper()
	t.Setenv(key, "")
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}
