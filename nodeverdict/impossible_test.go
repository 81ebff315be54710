package nodeverdict

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// seen is a last-seen gauge a kubelet could have written, an hour after
// its process started (started).
const (
	seen    = "# TYPE kubelet_pleg_last_seen_seconds gauge\nkubelet_pleg_last_seen_seconds 1796280300\n"
	started = "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds 1796276700.37\n"
)

// Captures that cannot be one scrape of one kubelet are refused, each with
// one line naming the file, the series and why; before, each was read and
// judged (the first of two samples taken, a relist before the process,
// "unhealthy 498920h" from a gauge of 1, ...).
func TestReadMetricsImpossible(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		// One series twice: the parser takes both, and the reader would
		// sum a counter or keep the newest gauge.
		{"a gauge twice", interval + seen + "kubelet_pleg_last_seen_seconds 1796280301\n",
			`^m.txt:7: kubelet_pleg_last_seen_seconds a second time \(the first is line 6\); want one sample per series, one scrape of one kubelet`},
		{"a counter twice, labels in another order", interval + "kubelet_runtime_operations_total{operation_type=\"status\",a=\"b\"} 3\nkubelet_runtime_operations_total{ a=\"b\", operation_type=\"status\" } 4\n",
			`^m.txt:6: kubelet_runtime_operations_total\{a="b",operation_type="status"\} a second time \(the first is line 5\)`},
		{"a histogram's _count twice", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 4\nkubelet_pleg_relist_interval_seconds_sum 8\nkubelet_pleg_relist_interval_seconds_count 4\nkubelet_pleg_relist_interval_seconds_count 9\n",
			`^m.txt:5: kubelet_pleg_relist_interval_seconds_count a second time \(the first is line 4\)`},
		{"a bucket twice", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 2\nkubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 2\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 4\nkubelet_pleg_relist_interval_seconds_sum 8\nkubelet_pleg_relist_interval_seconds_count 4\n",
			`^m.txt:3: kubelet_pleg_relist_interval_seconds_bucket\{le="1"\} a second time \(the first is line 2\)`},
		// A relist the running kubelet cannot have seen.
		{"last seen before the process started", interval + started + "# TYPE kubelet_pleg_last_seen_seconds gauge\nkubelet_pleg_last_seen_seconds 1796276000\n",
			`^m.txt: kubelet_pleg_last_seen_seconds is 1796276000 \(2026-12-03T05:33:20Z\), before the kubelet's process started \(process_start_time_seconds 1796276700.37, 2026-12-03T05:45:00Z\); want a relist of the kubelet that was scraped`},
		{"a process start before Kubernetes", interval + seen + "process_start_time_seconds 1000\n",
			`^m.txt: process_start_time_seconds is 1000 \(1970-01-01T00:16:40Z\); want a Unix time in seconds a kubelet can have started at, from 2014-06-01T00:00:00Z to the year 9999$`},
		{"two process starts", interval + seen + "process_start_time_seconds{a=\"1\"} 1796276700\nprocess_start_time_seconds{a=\"2\"} 1796276701\n",
			`^m.txt: process_start_time_seconds has 2 series; want one, the kubelet's process$`},
		// Histograms whose buckets are not cumulative, or whose +Inf
		// bucket is not the count.
		{"+Inf below a finite bucket", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 4\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 3\nkubelet_pleg_relist_interval_seconds_sum 8\nkubelet_pleg_relist_interval_seconds_count 4\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds_bucket le=\+Inf counts 3, below le=1's 4; want cumulative buckets, which never decrease$`},
		{"_count not the +Inf bucket", "# TYPE kubelet_pleg_relist_interval_seconds histogram\nkubelet_pleg_relist_interval_seconds_bucket{le=\"1\"} 2\nkubelet_pleg_relist_interval_seconds_bucket{le=\"+Inf\"} 4\nkubelet_pleg_relist_interval_seconds_sum 8\nkubelet_pleg_relist_interval_seconds_count 6\n",
			`^m.txt: kubelet_pleg_relist_interval_seconds_bucket le=\+Inf counts 4 but _count is 6; want the same`},
		{"_count not the +Inf bucket, TYPE lines stripped", "kubelet_runtime_operations_duration_seconds_bucket{operation_type=\"status\",le=\"+Inf\"} 3\nkubelet_runtime_operations_duration_seconds_sum{operation_type=\"status\"} 1\nkubelet_runtime_operations_duration_seconds_count{operation_type=\"status\"} 2\n" + interval,
			`^m.txt: kubelet_runtime_operations_duration_seconds_bucket le=\+Inf counts 3 but _count is 2; want the same`},
		// More failed calls than calls.
		{"more errors than calls", interval + "kubelet_runtime_operations_total{operation_type=\"list_podsandbox\"} 3\nkubelet_runtime_operations_errors_total{operation_type=\"list_podsandbox\"} 40\n",
			`^m.txt: kubelet_runtime_operations_errors_total\{operation_type="list_podsandbox"\} is 40 but kubelet_runtime_operations_total\{operation_type="list_podsandbox"\} is 3; want no more failed calls than calls`},
		// Gauges no kubelet can have written.
		{"a last-seen gauge of 1", interval + "kubelet_pleg_last_seen_seconds 1\n",
			`^m.txt: kubelet_pleg_last_seen_seconds is 1 \(1970-01-01T00:00:01Z\); want 0 \(never\) or a Unix time in seconds a kubelet can have seen, from 2014-06-01T00:00:00Z to the year 9999$`},
		{"a last-seen gauge of 1e3", interval + "kubelet_pleg_last_seen_seconds 1e3\n", `^m.txt: kubelet_pleg_last_seen_seconds is 1000 \(1970-01-01T00:16:40Z\); want 0 \(never\)`},
		{"a last-seen gauge in 2013", interval + "kubelet_pleg_last_seen_seconds 1388534400\n", `^m.txt: kubelet_pleg_last_seen_seconds is 1.3885344e\+09 \(2014-01-01T00:00:00Z\); want 0 \(never\)`},
		{"a last-seen gauge past the year 9999", interval + "kubelet_pleg_last_seen_seconds 1e12\n", `^m.txt: kubelet_pleg_last_seen_seconds is 1e\+12; want 0 \(never\)`},
		// A capture's time line present but not in kubectl pleg --save's
		// form is named, not read as a capture without a time.
		{"# scraped at without a time", "# scraped at\n" + interval, `^m.txt:1: malformed "# scraped at" line "# scraped at": no time; want exactly "# scraped at " and an RFC 3339 time`},
		{"# scraped at with blanks only", "# scraped at   \n" + interval, `^m.txt:1: malformed "# scraped at" line "# scraped at   ": no time;`},
		{"# Scraped At", "# Scraped At 2026-12-03T06:48:02Z\n" + interval, `^m.txt:1: malformed "# scraped at" line "# Scraped At 2026-12-03T06:48:02Z": not in that case and spacing;`},
		{"two blanks after #", "#  scraped at 2026-12-03T06:48:02Z\n" + interval, `^m.txt:1: malformed "# scraped at" line "#  scraped at 2026-12-03T06:48:02Z": not in that case and spacing;`},
		{"two blanks before the time", interval + "# scraped at  2026-12-03T06:48:02Z\n", `^m.txt:5: malformed "# scraped at" line "# scraped at  2026-12-03T06:48:02Z": blanks around the time;`},
		{"a blank after the time", "# scraped at 2026-12-03T06:48:02Z \n" + interval, `^m.txt:1: malformed "# scraped at" line "# scraped at 2026-12-03T06:48:02Z ": blanks around the time;`},
		{"scraped_at", "# scraped_at: 2026-12-03T06:48:02Z\n" + interval, `^m.txt:1: malformed "# scraped at" line .*: not in that case and spacing;`},
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

// What a kubelet writes stays read: a relist in the second the process
// started (the gauge truncates to the second), errors counted just ahead
// of their calls, a comment that merely mentions scraping.
func TestReadMetricsPossible(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"a relist in the process's first second", interval + started + "kubelet_pleg_last_seen_seconds 1796276700\n"},
		{"never relisted", interval + started + "kubelet_pleg_last_seen_seconds 0\n"},
		{"errors counted before their calls", interval + "kubelet_runtime_operations_total{operation_type=\"status\"} 3\nkubelet_runtime_operations_errors_total{operation_type=\"status\"} 5\n"},
		{"same labels, other series", interval + "kubelet_runtime_operations_total{operation_type=\"status\"} 3\nkubelet_runtime_operations_total{operation_type=\"version\"} 3\n"},
		{"a comment on scraping", "# scrape of node-a\n# scraped by kubectl\n" + interval},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ReadMetrics("m.txt", []byte(tc.data)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A capture's time the health cannot be computed at is unknown, saying
// why: before the kubelet's process started, or so far from the last
// relist that the elapsed time saturates a time.Duration (-at in 9999:
// before, "unhealthy 2562047h47m16.854775807s").
func TestHealthImpossibleTimes(t *testing.T) {
	at := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	for _, tc := range []struct {
		name, data string
		at         *time.Time
		says       string
	}{
		{"captured before the process started", interval + started + seen, at("2026-12-03T05:00:00Z"),
			`the capture's time 2026-12-03T05:00:00Z \(-at\) is 45m0s before the kubelet's process started \(process_start_time_seconds 1796276700.37, 2026-12-03T05:45:00Z\)`},
		{"captured before a never-relisted process started", interval + started + "kubelet_pleg_last_seen_seconds 0\n", at("2026-12-03T05:00:00Z"),
			`before the kubelet's process started`},
		{"captured in the year 9999", interval + seen, at("9999-12-31T23:59:59Z"),
			`the capture's time 9999-12-31T23:59:59Z \(-at\) and the time the PLEG was last seen active \(2026-12-03T06:45:00Z\) are more than 2562047h0m0s \(about 292 years\) apart, beyond what a duration holds`},
		{"last seen in the year 9000, captured in 2026", interval + "kubelet_pleg_last_seen_seconds 221845392000\n", at("2026-12-03T06:45:00Z"),
			`are more than 2562047h0m0s \(about 292 years\) apart`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMetrics("m.txt", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			h := Decide(Input{Gate: gateSet(false), Periods: release36, Metrics: *m, Health: rule36, At: tc.at, AtFrom: "-at"}).Health
			checkHealth(t, h)
			all := strings.Join(h.Evidence, "\n")
			if h.State != HealthUnknown || h.Elapsed != "" || !regexp.MustCompile(tc.says).MatchString(all) {
				t.Errorf("%s %q:\n%s\nwant unknown, saying %s", h.State, h.Elapsed, all, tc.says)
			}
		})
	}
	// A capture a second before the process start (clocks a second
	// apart) is judged.
	m, err := ReadMetrics("m.txt", []byte(interval+started+"kubelet_pleg_last_seen_seconds 1796276701\n"))
	if err != nil {
		t.Fatal(err)
	}
	if h := Decide(Input{Gate: gateSet(false), Periods: release36, Metrics: *m, Health: rule36, At: at("2026-12-03T05:44:59Z"), AtFrom: "-at"}).Health; h.State == HealthUnknown {
		t.Errorf("%+v", h)
	}
}

// A metrics request that got no answer at -at in the year 9999, judged
// from the last scrape that answered: before, "unhealthy
// 2562047h47m16.854775807s"; now unknown, the runtime still hung.
func TestHealthImpossibleTimesHung(t *testing.T) {
	m, err := ReadMetrics("last.txt", []byte("# scraped at 2026-12-03T06:45:02Z\n"+interval+seen))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{"9999-12-31T23:59:59Z", "2026-12-03T06:49:00Z"} {
		when, _ := time.Parse(time.RFC3339, at)
		f := NewMetricsFailure(awaitingHeaders, 10*time.Second, &when)
		h := Decide(Input{Gate: gateSet(false), Periods: release36, Metrics: *m, Health: rule36, At: &when, AtFrom: "-at", Failure: f, LastScrape: true, ConfigzAnswered: true}).Health
		checkHealth(t, h)
		all := strings.Join(h.Evidence, "\n")
		far := strings.Contains(all, "(about 292 years) apart, beyond what a duration holds")
		switch {
		case h.Runtime != RuntimeUnanswered:
			t.Errorf("at %s: runtime %s", at, h.Runtime)
		case at[:4] == "9999" && (h.State != HealthUnknown || h.Elapsed != "" || !far || strings.Contains(all, "2562047h47m")):
			t.Errorf("at %s: %s %q:\n%s", at, h.State, h.Elapsed, all)
		case at[:4] != "9999" && (h.State != HealthUnknown || h.Elapsed != "" || far || !strings.Contains(all, "4m0s before")):
			// Without a Node object, the last scrape's gauge is not
			// extrapolated: no unhealthy from its age alone.
			t.Errorf("at %s: %s %q:\n%s", at, h.State, h.Elapsed, all)
		}
	}
}
