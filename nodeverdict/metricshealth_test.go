package nodeverdict

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// The capture's time rides in a comment the parser skips; the runtime's
// calls are read by operation type.
func TestReadMetricsHealthFamilies(t *testing.T) {
	m := healthCapture(t, 0, 0, listTimeouts)
	if m.ScrapedAt == nil || m.ScrapedAt.Format(time.RFC3339) != scrapedAt {
		t.Errorf("scrapedAt %v; want %s", m.ScrapedAt, scrapedAt)
	}
	if got := strings.Join(m.Operations(), " "); got != "list_containers list_podsandbox status" {
		t.Errorf("operations %q", got)
	}
	ps := m.RuntimeOperations[OpListPodSandbox]
	if value(ps.Calls) != 812 || value(ps.Errors) != 2 || ps.Duration == nil || ps.Duration.Count != 812 || len(ps.Duration.Buckets) != 4 {
		t.Errorf("list_podsandbox %+v", ps)
	}
	if lc := m.RuntimeOperations[OpListContainers]; lc.Errors != nil || lc.Duration != nil || value(lc.Calls) != 810 {
		t.Errorf("list_containers %+v", lc)
	}
	// A local offset is kept as the same instant, in UTC.
	got, err := ReadMetrics("m.txt", []byte("# scraped at 2026-12-03T07:48:02.5+01:00\n"+interval))
	if err != nil || got.ScrapedAt == nil || got.ScrapedAt.Format(time.RFC3339Nano) != "2026-12-03T06:48:02.5Z" {
		t.Errorf("%v, %v", got, err)
	}
	// Without the comment, no time: never the file's.
	if got, err := ReadMetrics("m.txt", []byte(interval)); err != nil || got.ScrapedAt != nil {
		t.Errorf("%v, %v", got, err)
	}
}

func TestReadMetricsScrapedAtErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# scraped at yesterday\n" + interval, `m.txt:1: "yesterday" is not a time; want RFC 3339 (# scraped at 2026-12-03T06:45:01Z)`},
		{interval + "# scraped at 2026-12-03T06:48:02Z\n# scraped at 2026-12-03T06:48:03Z\n", `m.txt:6: a second "# scraped at" line (the first is line 5); want one capture's time`},
		{"# scraped at 2026-12-03 06:48:02\n" + interval, `m.txt:1: "2026-12-03 06:48:02" is not a time; want RFC 3339 (# scraped at 2026-12-03T06:45:01Z)`},
	} {
		_, err := ReadMetrics("m.txt", []byte(tc.in))
		checkErrorLine(t, err, regexp.QuoteMeta(tc.want))
	}
}
