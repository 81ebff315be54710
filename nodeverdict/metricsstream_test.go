package nodeverdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// readWhole is what ReadMetricsFrom must answer for a valid input: the
// whole input parsed, every family kept, and the capture's time line.
func readWhole(name string, data []byte) (*Metrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	m, err := fromFamilies(name, fams, len(fams))
	if err != nil {
		return nil, err
	}
	f := newMetricsFilter(bytes.NewReader(data))
	_, _ = io.Copy(io.Discard, f)
	if err := f.dupErr(name); err != nil {
		return nil, err
	}
	if err := f.scrapedErr(name); err != nil {
		return nil, err
	}
	m.ScrapedAt = f.scrapedAt
	return m, nil
}

// noise is a body of families the verdict does not read, of every type, in
// the shapes a kubelet serves them.
func noise(prefix string, families int) string {
	var b strings.Builder
	for i := range families {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "# HELP apiserver_%s%d_total [ALPHA] Requests, by code.\n# TYPE apiserver_%s%d_total counter\n", prefix, i, prefix, i)
			fmt.Fprintf(&b, "apiserver_%s%d_total{code=\"200\",path=\"/a}b\"} 17\napiserver_%s%d_total{code=\"500\"} 2 1700000000000\n", prefix, i, prefix, i)
		case 1:
			fmt.Fprintf(&b, "# TYPE rest_%s%d_seconds histogram\n", prefix, i)
			for _, le := range []string{"0.1", "1", "+Inf"} {
				fmt.Fprintf(&b, "rest_%s%d_seconds_bucket{le=%q} 4\n", prefix, i, le)
			}
			fmt.Fprintf(&b, "rest_%s%d_seconds_sum 1.5\nrest_%s%d_seconds_count 4\n", prefix, i, prefix, i)
		case 2:
			fmt.Fprintf(&b, "# TYPE go_%s%d_seconds summary\ngo_%s%d_seconds{quantile=\"0.5\"} 1e-05\ngo_%s%d_seconds_sum 0.2\ngo_%s%d_seconds_count 30\n", prefix, i, prefix, i, prefix, i, prefix, i)
		default:
			fmt.Fprintf(&b, "process_%s%d_bytes NaN\n\n", prefix, i)
		}
	}
	return b.String()
}

// The inputs a filter must not change the answer for: the samples, and
// kubelet-like bodies where the verdict's families sit among many others.
func streamInputs(t *testing.T) map[string]string {
	t.Helper()
	in := map[string]string{}
	files, _ := filepath.Glob(filepath.Join("testdata", "metrics", "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		in[filepath.Base(f)] = string(data)
		in[filepath.Base(f)+" among others"] = noise("a", 40) + string(data) + noise("b", 13)
	}
	in["interval among others"] = noise("a", 7) + interval + noise("b", 9)
	in["only others"] = noise("a", 25)
	in["a long label in a dropped family"] = "other_family{v=\"" + strings.Repeat("x", 200<<10) + "\"} 1\n" + interval
	in["a long label in a kept family"] = interval + "kubernetes_build_info{git_version=\"v1.36.1\",junk=\"" + strings.Repeat("y", 200<<10) + "\"} 1\n"
	in["a counter the OpenMetrics way"] = noise("a", 3) + "# TYPE kubelet_pleg_discard_events_total counter\nkubelet_pleg_discard_events_total 4\n"
	return in
}

func TestReadMetricsFromKeepsTheAnswer(t *testing.T) {
	for name, data := range streamInputs(t) {
		t.Run(name, func(t *testing.T) {
			want, wantErr := readWhole("m.txt", []byte(data))
			readers := map[string]io.Reader{
				"whole":          strings.NewReader(data),
				"a byte at once": iotest.OneByteReader(strings.NewReader(data)),
				"half reads":     iotest.HalfReader(strings.NewReader(data)),
			}
			for how, r := range readers {
				got, err := ReadMetricsFrom("m.txt", r)
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("%s: error %v; whole parse %v", how, err, wantErr)
				}
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				if !bytes.Equal(g, w) {
					t.Fatalf("%s: read %s\nwhole parse %s", how, g, w)
				}
			}
		})
	}
}

// The filter is what keeps the families: a body of many families reaches
// the parser as the few the verdict reads.
func TestMetricsFilterDrops(t *testing.T) {
	body := noise("a", 200) + interval + noise("b", 200)
	kept, err := io.ReadAll(newMetricsFilter(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := bytes.Count(kept, newline), strings.Count(body, "\n"); got != want {
		t.Errorf("filtered to %d lines, the input has %d: line numbers move", got, want)
	}
	if got, want := len(bytes.TrimSpace(kept)), len(strings.TrimSpace(interval)); got != want {
		t.Errorf("kept %d bytes besides empty lines; the verdict's families are %d:\n%s", got, want, bytes.TrimSpace(kept))
	}
}

// Errors keep their line, wherever the line is.
func TestReadMetricsFromErrors(t *testing.T) {
	others := noise("a", 10)
	at := strings.Count(others, "\n") + 1
	for _, tc := range []struct{ name, data, want string }{
		{"a word for a value", others + "kubelet_pleg_discard_events many\n", fmt.Sprintf(`^m.txt:%d: not Prometheus text format: expected float as value, got "many"`, at)},
		{"a bad line in a dropped family", others + "other_metric many\n" + interval, fmt.Sprintf(`^m.txt:%d: not Prometheus text format: expected float as value, got "many"`, at)},
		{"a cut last line", interval + "other_metric{a=\"b\"", `^m.txt:5: not Prometheus text format: unexpected end of input stream \(cut short\?\)`},
		{"a cut label", interval + "other_metric{a=\"b\n", `^m.txt:5: not Prometheus text format: `},
		{"an unknown type", "# TYPE other_metric sometimes\n" + interval, `^m.txt:1: not Prometheus text format: `},
		{"HTML", "<html>Unauthorized</html>\n", `^m.txt:1: not Prometheus text format: `},
		{"no pleg family", others, fmt.Sprintf(`^m.txt: no kubelet_pleg_\* metric among %d metric families;`, 10)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadMetricsFrom("m.txt", strings.NewReader(tc.data))
			if err == nil {
				got, _ := json.Marshal(m)
				t.Fatalf("no error; read %s", got)
			}
			checkErrorLine(t, err, tc.want)
		})
	}
}

// A body that breaks off (a connection cut) is an error of reading, not
// of format.
func TestReadMetricsFromReadError(t *testing.T) {
	cut := errors.New("connection reset by peer")
	r := io.MultiReader(strings.NewReader(interval), iotest.ErrReader(cut))
	_, err := ReadMetricsFrom("node-1 /metrics", r)
	checkErrorLine(t, err, `^node-1 /metrics: cannot read: connection reset by peer$`)
}

func FuzzReadMetricsFrom(f *testing.F) {
	f.Add([]byte(interval))
	f.Add([]byte(noise("a", 5) + interval))
	f.Add([]byte("# TYPE x histogram\nx_bucket{le=\"1\"} 1\nx_sum 1\nx_count 1\n" + interval))
	f.Add([]byte("# scraped at 2026-12-03T06:48:02Z\n" + noise("a", 5) + interval))
	// A kept series twice, a dropped one twice, a malformed time line.
	f.Add([]byte(noise("a", 2) + interval + "kubelet_pleg_discard_events{a=\"1\"} 1\nkubelet_pleg_discard_events{ a=\"1\" } 1\n"))
	f.Add([]byte(noise("a", 2) + noise("a", 2) + interval))
	f.Add([]byte("# Scraped At 2026-12-03T06:48:02Z\nprocess_start_time_seconds 1.7962804005e+09\nkubelet_pleg_last_seen_seconds 1.7962803e+09\n" + interval))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ReadMetricsFrom("m.txt", bytes.NewReader(data))
		checkRead(t, "m.txt", got, err)
		want, wantErr := readWhole("m.txt", data)
		if wantErr != nil {
			return // the filter may not see a fault in a family it drops
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if !bytes.Equal(g, w) {
			t.Fatalf("read %s (%v)\nwhole parse %s", g, err, w)
		}
	})
}
