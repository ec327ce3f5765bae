package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestOneHeadlineOnEverySurface: an open-loop and a closed-loop run lead
// with the same latency under the same label on every surface: the
// terminal, the JSON, the HTML report, compare and its --fail-on,
// --threshold, Prometheus and merge. Compare of the open-loop run with
// the closed-loop one says they measure different things and compares
// both from the send.
func TestOneHeadlineOnEverySurface(t *testing.T) {
	r := testenv.StartRedis(t)
	top := t.TempDir()
	byLoop := map[string]string{}
	for _, tc := range []struct {
		loop    string
		extra   []string
		measure result.LatencyMeasure
		prom    string
	}{
		{"closed", nil, result.FromSend, "service"},
		{"open", []string{"--rate", "2000"}, result.FromIntendedStart, "corrected"},
	} {
		t.Run(tc.loop+" loop", func(t *testing.T) {
			dir := filepath.Join(top, tc.loop)
			require.NoError(t, os.Mkdir(dir, 0o755))
			metricsAddr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
			a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
			base := append([]string{"redis", "-port", port(r), "-d", "2", "-p", "2", "-command", "INCR c", "-q",
				"--threshold", "p99<10s"}, tc.extra...)
			// Two clients at once (merge takes runs that overlapped); the
			// first serves its metrics.
			var wg sync.WaitGroup
			var resA, resB runOut
			wg.Add(2)
			go func() {
				defer wg.Done()
				resA = runCLI(context.Background(), slices.Concat(base, []string{"--json", a, "--metrics-addr", metricsAddr, "--metrics-linger", "20s"})...)
			}()
			go func() {
				defer wg.Done()
				resB = runCLI(context.Background(), slices.Concat(base, []string{"--json", b})...)
			}()
			page := scrapeFinished(t, metricsAddr)
			wg.Wait()
			require.Equal(t, 0, resA.code, resA.err)
			require.Equal(t, 0, resB.code, resB.err)
			run := readResult(t, a)
			lat, m := run.Totals.Headline()
			require.Equal(t, tc.measure, m)
			require.False(t, lat.Empty())
			label, p99 := m.Label(), fmt.Sprintf("%.3f", lat.P99/1000)

			// The JSON names its headline.
			assert.Equal(t, tc.measure, run.Totals.HeadlineLatency, "JSON")
			// The terminal.
			assert.Regexp(t, `(?m)^latency ms .* p99 `+p99+` .*`+label, resA.out, "terminal")
			// --threshold.
			require.Len(t, run.Thresholds, 1)
			assert.InDelta(t, lat.P99/1000, run.Thresholds[0].Observed, 1e-9, "threshold")
			assert.Equal(t, label, run.Thresholds[0].Note, "threshold")
			// The HTML report.
			html := filepath.Join(dir, "r.html")
			res := runCLI(context.Background(), "report", a, "-o", html)
			require.Equal(t, 0, res.code, res.err)
			page2, err := os.ReadFile(html)
			require.NoError(t, err)
			assert.Contains(t, string(page2), fmt.Sprintf("<td>%s</td><td>%.3f</td><td>%s</td>", label, lat.P50/1000, p99), "HTML")
			// compare and --fail-on.
			runB := readResult(t, b)
			latB, _ := runB.Totals.Headline()
			res = runCLI(context.Background(), "compare", a, b, "--fail-on", "p99>+1000%")
			require.Equal(t, 0, res.code, res.out+res.err)
			assert.Regexp(t, `(?m)^p99 `+label+` \(µs\)\s+`+regexp.QuoteMeta(fmt.Sprintf("%.2f", lat.P99))+`\s`, res.out, "compare")
			assert.Contains(t, res.out, fmt.Sprintf("p99 %s (µs): A %.3f, B %.3f", label, lat.P99, latB.P99), "--fail-on")
			// Prometheus.
			assert.Equal(t, 1.0, metricValue(t, page, "tairbench_headline_latency_info", map[string]string{"measure": tc.prom, "label": label}), "Prometheus")
			q := metricSummaryQuantile(t, page, "tairbench_latency_quantile_seconds", map[string]string{"measure": tc.prom, "op": ""}, 0.99)
			assert.InEpsilon(t, lat.P99, q*1e6, 0.001, "Prometheus p99")
			// merge.
			merged := filepath.Join(dir, "m.json")
			res = runCLI(context.Background(), "merge", a, b, "-o", merged)
			require.Equal(t, 0, res.code, res.err)
			mr := readResult(t, merged)
			ml, mm := mr.Totals.Headline()
			assert.Equal(t, tc.measure, mm, "merge")
			assert.Equal(t, tc.measure, mr.Totals.HeadlineLatency, "merge")
			assert.Regexp(t, `(?m)^latency ms .* p99 `+fmt.Sprintf("%.3f", ml.P99/1000)+` .*`+label, res.out, "merge")
			byLoop[tc.loop] = a
		})
	}
	if len(byLoop) < 2 {
		return
	}
	res := runCLI(context.Background(), "compare", byLoop["closed"], byLoop["open"], "--fail-on", "p99>+1000%")
	require.Equal(t, 0, res.code, res.out+res.err)
	assert.Contains(t, res.out, "note: A leads with latency from the send, B with latency from the intended start: they measure different things.")
	closed, open := readResult(t, byLoop["closed"]), readResult(t, byLoop["open"])
	assert.Contains(t, res.out, fmt.Sprintf("p99 latency from the send (µs): A %.3f, B %.3f", closed.Totals.Latency.P99, open.Totals.Latency.P99),
		"like with like: both from the send")
	assert.NotContains(t, res.out, "p99 latency from the intended start (µs)")
}

// scrapeFinished reads addr's metrics until its run is finished (its
// figures are the result's) and returns the page's families.
func scrapeFinished(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	var fams map[string]*dto.MetricFamily
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err = p.TextToMetricFamilies(resp.Body)
		if err != nil {
			return false
		}
		f := fams["tairbench_run_finished"]
		return f != nil && len(f.Metric) > 0 && f.Metric[0].GetGauge().GetValue() == 1
	}, 30*time.Second, 100*time.Millisecond, "the run's metrics, finished")
	return fams
}

// matching returns the family's metric whose labels include want.
func matching(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	f := fams[name]
	require.NotNil(t, f, name)
	for _, m := range f.Metric {
		ok := true
		for k, v := range want {
			found := false
			for _, l := range m.Label {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			ok = ok && found
		}
		if ok {
			return m
		}
	}
	var have []string
	for _, m := range f.Metric {
		have = append(have, m.String())
	}
	require.Failf(t, "no such metric", "%s with %v; have %s", name, want, strings.Join(have, "; "))
	return nil
}

// metricValue is a gauge's value.
func metricValue(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	return matching(t, fams, name, want).GetGauge().GetValue()
}

// metricSummaryQuantile is a summary's quantile q.
func metricSummaryQuantile(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string, q float64) float64 {
	for _, x := range matching(t, fams, name, want).GetSummary().GetQuantile() {
		if x.GetQuantile() == q {
			return x.GetValue()
		}
	}
	require.Failf(t, "no quantile", "%s has no quantile %v", name, q)
	return 0
}
