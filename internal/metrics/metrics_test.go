package metrics

import (
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func scrape(t *testing.T, e *Exporter) string {
	t.Helper()
	resp, err := http.Get("http://" + e.Addr() + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestExporterServesTicksThenTheResult(t *testing.T) {
	e, err := Start("127.0.0.1:0", Labels{RunID: "r1", Version: "test"})
	require.NoError(t, err)
	run := e.Begin(Labels{Workload: "GET k", Target: "127.0.0.1:6379", Connections: 4})
	other := e.Begin(Labels{Workload: "SET k v", Target: "127.0.0.1:6379", Connections: 4})
	other.Observe(stats.Progress{TotalOps: 7})
	h := stats.NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		require.NoError(t, h.RecordValue(v))
	}
	run.Observe(stats.Progress{TotalOps: 1000, Totals: &stats.Totals{Service: h, Requests: 1000}})
	page := scrape(t, e)
	assert.Contains(t, page, `tairbench_commands_total{run_id="r1",shard="",target="127.0.0.1:6379",tool_version="test",workload="GET k"} 1000`)
	assert.Contains(t, page, `tairbench_run_finished{run_id="r1"`)
	assert.Contains(t, page, `tairbench_commands_total{run_id="r1",shard="",target="127.0.0.1:6379",tool_version="test",workload="SET k v"} 7`, "every run of the process")
	assert.Regexp(t, `tairbench_latency_quantile_seconds\{measure="service",op="",.*quantile="0.99"\} 0.00099`, page)
	assert.Regexp(t, `tairbench_latency_seconds_bucket\{measure="service",op="".*le="0.001"\} 1000`, page)

	r := &result.Run{Totals: result.Totals{Ops: 1234, Requests: 1234, Schedule: &result.Schedule{Behind: 3, BehindDown: 1, ClientLags: 2, BehindMaxMS: 40}},
		Histogram: result.EncodeHistogram(h), Errors: []result.ErrorCount{{Kind: "reply", Message: "WRONGTYPE x", Count: 5}}}
	run.Final(r)
	final := scrape(t, e)
	assert.Regexp(t, `tairbench_error_causes_total\{cause="WRONGTYPE x",kind="reply",[^}]*workload="GET k"\} 5`, final)
	assert.Regexp(t, `tairbench_schedule_behind_requests_total\{[^}]*workload="GET k"\} 3`, final)
	assert.Regexp(t, `tairbench_schedule_behind_down_requests_total\{[^}]*workload="GET k"\} 1`, final)
	assert.Regexp(t, `tairbench_schedule_behind_max_seconds\{[^}]*workload="GET k"\} 0.04`, final)
	start := time.Now() // the scrape above came after Final
	require.NoError(t, e.Close(t.Context(), 10*time.Second, io.Discard))
	assert.Less(t, time.Since(start), 5*time.Second, "a scrape after Final ends the wait")
}

// TestDashboardNamesExist keeps the Grafana dashboard on the metric names
// the exporter serves.
func TestDashboardNamesExist(t *testing.T) {
	raw, err := os.ReadFile(testenv.RepoPath(t, "docs/grafana/tairbench-dashboard.json"))
	require.NoError(t, err)
	e := &Exporter{}
	e.describe()
	known := map[string]bool{"tairbench_process_cpu_seconds_total": true}
	for _, d := range e.desc {
		name := regexp.MustCompile(`fqName: "([a-z_]+)"`).FindStringSubmatch(d.String())[1]
		for _, suffix := range []string{"", "_bucket", "_sum", "_count"} {
			known[name+suffix] = true
		}
	}
	names := regexp.MustCompile(`tairbench_[a-z_]+`).FindAllString(string(raw), -1)
	require.NotEmpty(t, names)
	for _, n := range names {
		assert.True(t, known[n] || strings.HasPrefix(n, "tairbench_process_"), "the dashboard uses %s, which tairbench does not serve", n)
	}
}

// TestNativeHistogram: the native histogram's buckets hold every sample.
func TestNativeHistogram(t *testing.T) {
	e, err := Start("127.0.0.1:0", Labels{RunID: "r", Version: "test"})
	require.NoError(t, err)
	defer e.Close(t.Context(), 0, io.Discard)
	h := stats.NewHistogram()
	for v := int64(1); v <= 10000; v++ {
		require.NoError(t, h.RecordValue(v))
	}
	e.Begin(Labels{Workload: "GET k"}).Observe(stats.Progress{TotalOps: 10000, Totals: &stats.Totals{Service: h}})
	fams, err := e.registry.Gather()
	require.NoError(t, err)
	for _, f := range fams {
		if f.GetName() != "tairbench_latency_native_seconds" {
			continue
		}
		nh := f.GetMetric()[0].GetHistogram()
		assert.Equal(t, int32(nativeSchema), nh.GetSchema())
		assert.Equal(t, uint64(10000), nh.GetSampleCount())
		// The buckets come as deltas from one to the next.
		var n int64
		var cur int64
		for _, d := range nh.GetPositiveDelta() {
			cur += d
			n += cur
		}
		assert.Equal(t, int64(10000), n)
		return
	}
	t.Fatal("no native histogram gathered")
}

// TestEachOperationsLatencyFromTheIntendedStart: an open-loop run with
// two operation types serves each one's latency from the intended start
// (measure="corrected") beside its service time, live and after Final.
func TestEachOperationsLatencyFromTheIntendedStart(t *testing.T) {
	e, err := Start("127.0.0.1:0", Labels{RunID: "r2", Version: "test"})
	require.NoError(t, err)
	defer func() { _ = e.Close(t.Context(), 0, io.Discard) }()
	run := e.Begin(Labels{Workload: "mix", Target: "127.0.0.1:6379", Connections: 4})
	service, corrected := stats.NewHistogram(), stats.NewHistogram()
	for v := int64(1); v <= 100; v++ {
		require.NoError(t, service.RecordValue(v))
		require.NoError(t, corrected.RecordValue(10*v))
	}
	run.Observe(stats.Progress{TotalOps: 200, Totals: &stats.Totals{Service: service, Corrected: corrected, Requests: 200,
		OpNames: []string{"get", "set"}, Ops: []*hdr.Histogram{service, service}, OpsCorrected: []*hdr.Histogram{corrected, corrected},
		OpCounts: []int64{100, 100}, OpErrors: []int64{0, 0}}})
	live := scrape(t, e)
	assert.Regexp(t, `tairbench_latency_quantile_seconds\{measure="corrected",op="get",.*quantile="0.99"\} 0.00099`, live)
	assert.Regexp(t, `tairbench_latency_quantile_seconds\{measure="service",op="get",.*quantile="0.99"\} 9.9e-05`, live)

	c := result.Latency{Mean: 505, P99: 990}
	run.Final(&result.Run{Totals: result.Totals{Ops: 200, CorrectedLatency: &c, HeadlineLatency: result.FromIntendedStart},
		Histogram: result.EncodeHistogram(service), HistogramCorrected: result.EncodeHistogram(corrected),
		Operations: []result.Operation{{Name: "set", Ops: 100, Histogram: result.EncodeHistogram(service), HistogramCorrected: result.EncodeHistogram(corrected)}}})
	final := scrape(t, e)
	assert.Regexp(t, `tairbench_latency_quantile_seconds\{measure="corrected",op="set",.*quantile="0.99"\} 0.00099`, final)
	assert.Regexp(t, `tairbench_headline_latency_info\{label="latency from the intended start",measure="corrected"`, final)
}
