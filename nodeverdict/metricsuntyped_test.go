package nodeverdict

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"
)

// withoutComments is a capture as grep -v '^#' leaves it: no HELP, TYPE
// or other comment line.
func withoutComments(data []byte) []byte {
	return regexp.MustCompile(`(?m)^#.*\n`).ReplaceAll(data, nil)
}

// Every capture reads the same without its comment lines: a histogram
// without its TYPE line is read from its _bucket, _sum and _count
// samples, not dropped.
func TestReadMetricsWithoutComments(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "metrics", "*.txt"))
	real, _ := filepath.Glob(filepath.Join("testdata", "real", "*", "*", "[0-9][0-9][0-9].txt"))
	files = append(files, real...)
	if len(files) < 50 {
		t.Fatalf("%d captures", len(files))
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ReadMetrics(file, data)
		if err != nil {
			t.Fatal(err)
		}
		want.ScrapedAt = nil // a comment line too
		got, err := ReadMetrics(file, withoutComments(data))
		if err != nil {
			t.Errorf("%s without comments: %v", file, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			t.Errorf("%s without comments reads\n%s\nnot\n%s", file, g, w)
		}
	}
}

// The verdict a relist interval decides does not flip when the comment
// lines are stripped: an evented node relisting every second is
// inconsistent either way.
func TestDecideWithoutComments(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "metrics", "evented.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fast := bytes.Replace(data, []byte("kubelet_pleg_relist_interval_seconds_sum 3310\n"), []byte("kubelet_pleg_relist_interval_seconds_sum 12\n"), 1)
	for name, capture := range map[string][]byte{"as captured": fast, "without comments": withoutComments(fast)} {
		m, err := ReadMetrics("m.txt", capture)
		if err != nil {
			t.Fatal(err)
		}
		if d := Decide(Input{Gate: gateSet(true), Periods: release36, Metrics: *m}); d.Verdict != Inconsistent {
			t.Errorf("%s: %s; want %s", name, d.Verdict, Inconsistent)
			logReasons(t, d)
		}
	}
}

func TestReadMetricsUntypedErrors(t *testing.T) {
	untyped := withoutCommentsText(interval)
	for _, tc := range []struct {
		name, data, want string
	}{
		{"only _count", "kubelet_pleg_relist_interval_seconds_count 4\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds has _count samples but no _bucket or _sum, and no TYPE line; want a histogram's _bucket, _sum and _count samples, as the kubelet writes them$`},
		{"only _bucket", "kubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 4\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds has _bucket samples but no _sum or _count, and no TYPE line; want`},
		{"a series without _count", untyped + "kubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\",shard=\"b\"} 1\nkubelet_pleg_relist_interval_seconds_sum{shard=\"b\"} 1\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds\{shard="b"\} has no _sum or no _count sample; want each series' _sum and _count$`},
		{"a bound that is no number", "kubelet_pleg_relist_interval_seconds_bucket{le=\"soon\"} 4\n" + untyped,
			`^m.txt: kubelet_pleg_relist_interval_seconds_bucket has le="soon"; want a bucket's upper bound, a number$`},
		{"a second _count", untyped + "kubelet_pleg_relist_interval_seconds_count 5\n",
			`^m.txt:4: kubelet_pleg_relist_interval_seconds_count a second time \(the first is line 3\); want one sample per series`},
		{"a _count typed a counter", "kubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 4\nkubelet_pleg_relist_interval_seconds_sum 8\n# TYPE kubelet_pleg_relist_interval_seconds_count counter\nkubelet_pleg_relist_interval_seconds_count 4\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds_count is a counter; want the _count sample of the histogram kubelet_pleg_relist_interval_seconds$`},
		{"a fractional count untyped", "kubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 4\nkubelet_pleg_relist_interval_seconds_sum 8\nkubelet_pleg_relist_interval_seconds_count 3599.9\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds_count is 3599.9; want a whole count of observations, below 2\^53$`},
		// The count as read, not the 0 the parser leaves of it.
		{"a fractional count", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 3600\nkubelet_pleg_relist_interval_seconds_sum 3635\nkubelet_pleg_relist_interval_seconds_count 3599.9\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds_count is 3599.9; want a whole count of observations, below 2\^53$`},
		{"a fractional bucket", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 2.5\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 4\nkubelet_pleg_relist_interval_seconds_sum 8\nkubelet_pleg_relist_interval_seconds_count 4\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds_bucket le=1 is 2.5; want a whole count of observations, below 2\^53$`},
		{"a count too large to convert", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_sum 1\nkubelet_pleg_relist_interval_seconds_count 1e300\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds_count is 1e\+300; want a whole count of observations, below 2\^53$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMetrics("m.txt", []byte(tc.data))
			if err == nil {
				got, _ := json.Marshal(m)
				t.Fatalf("no error; read %s", got)
			}
			checkErrorLine(t, err, tc.want)
		})
	}
}

func withoutCommentsText(s string) string { return string(withoutComments([]byte(s))) }
