package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// promQuery asks Prometheus' HTTP API for an instant vector's first value.
func promQuery(t *testing.T, base, q string) (float64, bool) {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(q))
	require.NoError(t, err)
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "success", body.Status, q)
	if len(body.Data.Result) == 0 {
		return 0, false
	}
	s, _ := body.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err)
	return v, true
}

// TestMetricsThroughPrometheus: Debian's prometheus scrapes a 10-second run
// every second; once the run has ended (and its endpoint was scraped after
// it), Prometheus holds the run's exact command count, the p99 of its
// HdrHistogram, and a histogram whose interpolated p99 lies in the JSON
// p99's bucket.
func TestMetricsThroughPrometheus(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	prom := testenv.StartPrometheus(t, addr)
	js := filepath.Join(t.TempDir(), "run.json")
	res := runCLI(context.Background(), "redis", "--embedded", "-command", "TR.GETBIT foo __RAND__", "-p", "2", "-d", "10", "-q",
		"--metrics-addr", addr, "--metrics-linger", "30", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	assert.NotContains(t, res.err, "no scrape after the run")
	r := readRunFile(t, js)

	sel := `{job="tairbench"}`
	var ops float64
	require.Eventually(t, func() bool {
		ops, _ = promQuery(t, prom, "tairbench_commands_total"+sel)
		fin, _ := promQuery(t, prom, "tairbench_run_finished"+sel)
		return fin == 1 && ops == float64(r.Totals.Ops)
	}, 15*time.Second, 200*time.Millisecond, "Prometheus has %v commands, the JSON %d", ops, r.Totals.Ops)

	p99, ok := promQuery(t, prom, `tairbench_latency_quantile_seconds{job="tairbench",measure="service",op="",quantile="0.99"}`)
	require.True(t, ok)
	assert.InEpsilon(t, r.Totals.Latency.P99, p99*1e6, 0.001, "p99 from the HdrHistogram")

	est, ok := promQuery(t, prom, `histogram_quantile(0.99, tairbench_latency_seconds_bucket{job="tairbench",measure="service",op=""})`)
	require.True(t, ok)
	// Buckets are ten a decade: the estimate and the truth share one.
	assert.LessOrEqual(t, math.Abs(math.Log10(est*1e6)-math.Log10(r.Totals.Latency.P99)), 0.1,
		"histogram_quantile %.1f µs, JSON p99 %.1f µs", est*1e6, r.Totals.Latency.P99)

	info, ok := promQuery(t, prom, `tairbench_run_info{job="tairbench",server="tairbench embedded server, not Tair"}`)
	require.True(t, ok, "run_info names the embedded server as not Tair")
	assert.Equal(t, 1.0, info)

	count, ok := promQuery(t, prom, `tairbench_latency_seconds_count{job="tairbench",measure="service",op=""}`)
	require.True(t, ok)
	assert.Positive(t, count)
}

// TestServeMetrics: 'serve --metrics-addr' counts the commands it runs.
func TestServeMetrics(t *testing.T) {
	port := testenv.FreePort(t)
	maddr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan runOut, 1)
	go func() { done <- runCLI(ctx, "serve", "--port", strconv.Itoa(port), "--metrics-addr", maddr) }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	require.Eventually(t, func() bool {
		c, err := http.Get("http://" + maddr + "/metrics")
		if err == nil {
			c.Body.Close()
		}
		return err == nil
	}, 10*time.Second, 50*time.Millisecond)
	for i := 0; i < 3; i++ {
		testenv.Do(t, addr, "PING")
	}
	resp, err := http.Get("http://" + maddr + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Regexp(t, `tairbench_server_commands_total\{server="tairbench-embedded"\} [3-9]`, string(body))
	cancel()
	<-done
}

// TestMetricsOfEveryRun: front-ends that run several tests serve each
// test's series, and the endpoint waits for a scrape after the last.
func TestMetricsOfEveryRun(t *testing.T) {
	cases := [][]string{
		{"redis-benchmark", "--embedded", "-t", "set,get", "-n", "3000", "-q"},
		{"roaring", "--embedded", "--cases", "single-read/getbit,single-read/rank", "--duration-per-case", "0.5"},
		{"memtier", "--embedded", "--test-time", "1", "-c", "2", "-t", "1", "--hide-histogram"},
		{"ycsb", "load", "redis", "-P", "workloads/workloada", "--embedded", "-p", "redis.command_group=string", "-p", "recordcount=500"},
		{"resp-benchmark", "--embedded", "-c", "2", "-n", "3000", "-q", "SET {key uniform 100} {value 8}"},
	}
	for _, args := range cases {
		t.Run(args[0], func(t *testing.T) {
			addr := fmt.Sprintf("127.0.0.1:%d", testenv.FreePort(t))
			done := make(chan runOut, 1)
			go func() {
				done <- runCLI(context.Background(), append(args, "--metrics-addr", addr, "--metrics-linger", "60")...)
			}()
			// Scrape as Prometheus would until the command ends: it ends
			// only after a scrape that follows its last run.
			var page string
			var res runOut
		loop:
			for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); {
				select {
				case res = <-done:
					break loop
				case <-time.After(200 * time.Millisecond):
				}
				if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					page = string(b)
				}
			}
			require.Equal(t, 0, res.code, res.err)
			assert.Contains(t, page, "tairbench_commands_total{")
			assert.Regexp(t, `tairbench_run_finished\{[^}]*\} 1`, page, "the last scrape holds the finished runs")
			assert.NotRegexp(t, `tairbench_run_finished\{[^}]*\} 0`, page)
			assert.NotContains(t, res.err, "no scrape after the run")
		})
	}
}
