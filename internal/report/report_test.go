package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func f(v float64) *float64 { return &v }

func sample() (*result.Run, *hdr.Histogram) {
	h := hdr.New(1, 60_000_000, 3)
	for i := int64(1); i <= 1000; i++ {
		_ = h.RecordValue(100 + i)
	}
	_ = h.RecordValue(25_000)
	r := &result.Run{
		Header:     result.Header{Schema: result.SchemaRun, StartedAt: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		Command:    "TR.SETBIT foo-__RAND__ bar-__RAND2__",
		Config:     result.RunConfig{Mode: "MULTI/EXEC batches of 10", Connections: 20},
		DurationMS: 30000, StopReason: "duration",
		Totals: result.Totals{Ops: 10010, Requests: 1001, OpsPerRequest: 10, Errors: 6000, ErrorRate: 0.5994,
			Aborted: 3, OpsPerSec: 333.7, RequestsPerSec: 33.4, HistogramRangeUS: 60_000_000, Overflow: 1,
			Latency: result.Latency{Min: 101, Mean: 630, P50: 600, P90: 1000, P99: 1100, P999: 25000, Max: 25000}},
		Errors: []result.ErrorCount{{Kind: "reply", Message: "ERR bit offset is not an integer or out of range",
			Example: "ERR bit offset is not an integer or out of range", Count: 5990},
			{Kind: "connection", Message: "read: timeout", Example: "read: timeout", Count: 10}},
		Availability: result.Availability{Connections: 20, ConnectionsLost: 2, DowntimeMS: 300, Reconnects: 2, SilentSeconds: []int{1}},
		Series: []result.Interval{{Second: 0, Ops: 10010, Requests: 1001, Errors: 6000, OpsPerSec: 10010, MeanUS: f(630), P50US: f(600), P99US: f(1100), MaxUS: f(25000)},
			{Second: 1}},
		Client: result.Client{CPUPerOpUS: 3.5, CPUUtil: 1.95, Cores: 2, Saturated: true},
	}
	r.Warnings = Warnings(r)
	return r, h
}

func TestTextGolden(t *testing.T) {
	r, h := sample()
	var b bytes.Buffer
	require.NoError(t, Text(&b, r, h))
	testenv.Golden(t, "summary.txt", b.Bytes())
}

// TestTextNamesTheTarget: a run against tairbench's embedded server says
// it is not Tair, in this process or over the network; one against
// redis-server names it and its version, with no such note.
func TestTextNamesTheTarget(t *testing.T) {
	targets := map[string]*result.Target{
		"summary-embedded.txt": {Addr: "127.0.0.1:40001", InProcess: true,
			Server: &result.ServerIdentity{Name: "tairbench-embedded", Version: "7.0.0", Embedded: true}},
		"summary-serve.txt": {Addr: "10.0.0.5:6379",
			Server: &result.ServerIdentity{Name: "tairbench-embedded", Version: "7.0.0", Embedded: true}},
		"summary-redis.txt": {Addr: "127.0.0.1:6379", Server: &result.ServerIdentity{Name: "redis", Version: "7.0.15"}},
	}
	for name, tg := range targets {
		t.Run(name, func(t *testing.T) {
			r, h := sample()
			r.Config.Target = tg
			r.Totals.Schedule = &result.Schedule{Rate: 20000, Arrivals: "poisson", AchievedRate: 19990}
			var b bytes.Buffer
			require.NoError(t, Text(&b, r, h))
			testenv.Golden(t, name, b.Bytes())
			assert.Equal(t, tg.NotTair(), bytes.Contains(b.Bytes(), []byte("not Tair")))
			assert.Contains(t, b.String(), "open-loop at 20000 requests/s (poisson arrivals)")
		})
	}
}

// TestOpenLoopHistogramSaysWhatItShows: an open-loop run's latency line
// is from the intended start, and the bars (the service times) say so, so
// that they cannot be read as the line's distribution.
func TestOpenLoopHistogramSaysWhatItShows(t *testing.T) {
	r, h := sample()
	var b bytes.Buffer
	require.NoError(t, Text(&b, r, h))
	assert.Contains(t, b.String(), "\nlatency histogram\n")
	r.Totals.CorrectedLatency = &result.Latency{Min: 150, Mean: 900, P50: 800, P90: 1500, P99: 2000, P999: 30000, Max: 30000}
	b.Reset()
	require.NoError(t, Text(&b, r, h))
	assert.Contains(t, b.String(), "from the intended start: what users waited")
	assert.Contains(t, b.String(), "\nservice time histogram (latency from the send)\n")
	assert.NotContains(t, b.String(), "\nlatency histogram\n")
}

// TestScheduleSaysWhatLateRequestsWaitedFor: requests held up by a failed
// connection are not said to wait for replies.
func TestScheduleSaysWhatLateRequestsWaitedFor(t *testing.T) {
	for _, tc := range []struct {
		behind, down int64
		want         string
	}{
		{0, 0, "0 requests started behind schedule (mean 2.0 ms, max 5.0 ms) waiting for replies;"},
		{12, 0, "12 requests started behind schedule (mean 2.0 ms, max 5.0 ms) waiting for replies;"},
		{3113, 3000, "3113 requests started behind schedule (mean 2.0 ms, max 5.0 ms) 113 waiting for replies, " +
			"3000 for a connection (the target failed);"},
	} {
		r, h := sample()
		r.Totals.Schedule = &result.Schedule{Rate: 2000, Arrivals: "constant", AchievedRate: 1990,
			Behind: tc.behind, BehindDown: tc.down, BehindMeanMS: 2, BehindMaxMS: 5}
		var b bytes.Buffer
		require.NoError(t, Text(&b, r, h))
		assert.Contains(t, b.String(), tc.want)
	}
}

// TestShortfallAfterAnOutageNamesIt: a run that sent less than its rate
// because the target was unreachable says so, not that it lacked
// connections.
func TestShortfallAfterAnOutageNamesIt(t *testing.T) {
	r := &result.Run{StopReason: result.StopDuration, DurationMS: 6000,
		Totals:       result.Totals{Ops: 11412, Requests: 11412, ConnectFailures: 576, Schedule: &result.Schedule{Rate: 2000, AchievedRate: 1903}},
		Availability: result.Availability{UnreachableMS: 1500}}
	joined := strings.Join(Warnings(r), "\n")
	assert.Contains(t, joined, "the run sent 1903 requests/s of the 2000 asked for, with the target unreachable 1.5 s: each of the 576 failed attempts to connect took a scheduled request's place")
	assert.NotContains(t, joined, "more connections")
	r.Totals.ConnectFailures, r.Availability.UnreachableMS = 0, 0
	assert.Contains(t, strings.Join(Warnings(r), "\n"), "the connections could not keep the schedule (more connections, or a lower rate)")
}

func TestCSVGolden(t *testing.T) {
	r, _ := sample()
	var b bytes.Buffer
	require.NoError(t, CSV(&b, r))
	testenv.Golden(t, "series.csv", b.Bytes())
}

func TestWarningsCoverMisleadingRuns(t *testing.T) {
	r, _ := sample()
	w := Warnings(r)
	joined := ""
	for _, s := range w {
		joined += s + "\n"
	}
	for _, want := range []string{"59.9% of commands failed", "3 MULTI/EXEC batches were aborted",
		"exceeded the histogram's 60 s range", "the client used 1.95 of 2 cores"} {
		assert.Contains(t, joined, want)
	}
	assert.True(t, Failed(r))
	ok := &result.Run{Totals: result.Totals{Ops: 10}}
	assert.Empty(t, Warnings(ok))
	assert.False(t, Failed(ok))
}

// TestLostCommandsAddUp: commands lost with their connection are errors
// without a reply; the summary shows both counts, so that answered and
// lost add up to the errors' base.
func TestLostCommandsAddUp(t *testing.T) {
	r, h := sample()
	r.Totals.LostOps, r.Totals.TransportErrors, r.Totals.ErrorRate = 10, 1, 6000.0/10020
	var b bytes.Buffer
	require.NoError(t, Text(&b, r, h))
	assert.Contains(t, b.String(), "commands     10010 answered in 1001 requests, 10 lost with their connection: 6000 errors (59.88% of 10020)\n")
}
