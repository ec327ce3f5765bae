package whitepaper

import (
	"bytes"
	"path/filepath"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestWriteGolden holds each suite's table, beside the published
// figures, to its golden file, rendered from a saved suite document
// (testdata/SUITE.json, written by 'tairbench suite SUITE --json' at small
// sizes and trimmed of histograms and series, which the tables do not
// read).
func TestWriteGolden(t *testing.T) {
	for _, suite := range Suites {
		t.Run(suite, func(t *testing.T) {
			doc, err := result.ReadFile(filepath.Join("testdata", suite+".json"))
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, Write(&b, doc.(*result.WhitepaperSuite)))
			testenv.Golden(t, suite+".golden", b.Bytes())
		})
	}
}

// TestCumulative: the share of requests at or below each 0.1 ms step, of
// the latency from the send, or from the intended start when a capacity
// search found the run.
func TestCumulative(t *testing.T) {
	service, corrected := hdr.New(1, 60_000_000, 3), hdr.New(1, 60_000_000, 3)
	for _, us := range []int64{50, 150, 150, 250} {
		require.NoError(t, service.RecordValue(us))
		require.NoError(t, corrected.RecordValue(us+100))
	}
	run := &result.Run{Histogram: result.EncodeHistogram(service), HistogramCorrected: result.EncodeHistogram(corrected)}
	tests := []struct {
		name     string
		run      *result.Run
		searched bool
		want     []float64 // percent at 0.1, 0.2, 0.3 ms
	}{
		{"from the send", run, false, []float64{25, 75, 100}},
		{"from the intended start, searched", run, true, []float64{0, 25, 75}},
		{"searched, closed loop", &result.Run{Histogram: run.Histogram}, true, []float64{25, 75, 100}},
		{"no histogram", &result.Run{}, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cumulative(tc.run, tc.searched, 3)
			require.NoError(t, err)
			var pct []float64
			for i, st := range got {
				assert.InDelta(t, float64(i+1)/10, st.LEms, 1e-9)
				pct = append(pct, st.Percent)
			}
			assert.Equal(t, tc.want, pct)
		})
	}
	_, err := cumulative(&result.Run{Histogram: "damaged"}, false, 3)
	assert.Error(t, err, "a damaged histogram is an error, not an empty table")
}

func TestApplyCapacity(t *testing.T) {
	c := result.WhitepaperCase{Reference: result.WhitepaperFigures{QPS: 100_000}, Measured: result.WhitepaperFigures{QPS: 90_000}, Ratio: 0.9}
	applyCapacity(&c, nil)
	assert.Equal(t, 0.9, c.Ratio, "no search: the measured run stands")
	applyCapacity(&c, &result.CapacitySearch{HighestHeld: 120_000})
	assert.Equal(t, 120_000.0, c.Measured.QPS, "the search's answer is the measured QPS")
	assert.InDelta(t, 1.2, c.Ratio, 1e-9)
	assert.NotNil(t, c.Capacity)
}

// TestMeasured: per operation when the run has several, else the one
// operation named, else the QPS alone.
func TestMeasured(t *testing.T) {
	lat := func(mean, p99 float64) result.Latency { return result.Latency{Mean: mean, P99: p99} }
	mixed := &result.Run{Totals: result.Totals{OpsPerSec: 5000, Latency: lat(9, 99)},
		Operations: []result.Operation{{Name: "READ", Latency: lat(1, 10)}, {Name: "UPDATE", Latency: lat(2, 20)}}}
	one := &result.Run{Totals: result.Totals{OpsPerSec: 3000, Latency: lat(3, 30)}}
	tests := []struct {
		name string
		run  *result.Run
		ops  []string
		want result.WhitepaperFigures
	}{
		{"mixed", mixed, []string{"READ", "UPDATE"}, result.WhitepaperFigures{QPS: 5000,
			Latency: []result.OpLatency{{Op: "READ", AvgUS: 1, P99US: 10}, {Op: "UPDATE", AvgUS: 2, P99US: 20}}}},
		{"one operation", one, []string{"INSERT"}, result.WhitepaperFigures{QPS: 3000, Latency: []result.OpLatency{{Op: "INSERT", AvgUS: 3, P99US: 30}}}},
		{"none named", one, nil, result.WhitepaperFigures{QPS: 3000}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, measured(tc.run, tc.ops), tc.name)
	}
}

// TestYCSBArgs: the YCSB line of a case; a load's operationcount is its
// recordcount, as the whitepaper's loads are.
func TestYCSBArgs(t *testing.T) {
	o := YCSBOptions{Records: 1000, Operations: 5000, Threads: 8}
	assert.Equal(t, []string{"run", "redis", "-P", "workloads/workloada", "-p", "recordcount=1000", "-p", "operationcount=5000",
		"-p", "redis.command_group=hash", "-p", "fieldcount=10", "-p", "fieldlength=128", "-threads", "8", "-p", "requestdistribution=zipfian"},
		ycsbArgs("run", "workloada", o, "hash", 10, 128, "-p", "requestdistribution=zipfian"))
	load := ycsbArgs("load", "workloada", o, "string", 1, 100)
	assert.Equal(t, "operationcount=1000", load[7])
}

func TestYCSBDefaults(t *testing.T) {
	var o YCSBOptions
	o.defaults(20_000)
	assert.Equal(t, int64(20_000), o.Records)
	assert.Equal(t, int64(20_000), o.Operations, "operationcount follows recordcount")
	assert.Equal(t, 32, o.Threads)
	o = YCSBOptions{Records: 10, Operations: 7, Threads: 2}
	o.defaults(20_000)
	assert.Equal(t, []any{int64(10), int64(7), 2}, []any{o.Records, o.Operations, o.Threads}, "given values stand")
}

// TestFailure: a case whose run failed makes the suite exit 3, naming it.
func TestFailure(t *testing.T) {
	ok := result.WhitepaperCase{Name: "SET 64 B", Run: &result.Run{Totals: result.Totals{Ops: 100}}}
	bad := result.WhitepaperCase{Name: "GET 64 B", Run: &result.Run{Totals: result.Totals{Ops: 100, Errors: 90, ErrorRate: 0.9}}}
	assert.NoError(t, failure(&result.WhitepaperSuite{Cases: []result.WhitepaperCase{ok}}))
	err := failure(&result.WhitepaperSuite{Cases: []result.WhitepaperCase{ok, bad}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GET 64 B")
	var ee *harness.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, harness.ExitRunFailed, ee.Code)
}

// TestWriteCapacityGolden: a suite run as capacity searches says so at
// its top, names each case's bracket and steps, and keeps each search's
// warnings and each run's own, rendered from the saved enhanced suite with
// two searches set on it.
func TestWriteCapacityGolden(t *testing.T) {
	doc, err := result.ReadFile(filepath.Join("testdata", "enhanced.json"))
	require.NoError(t, err)
	s := doc.(*result.WhitepaperSuite)
	s.SLO = "p99<2ms"
	applyCapacity(&s.Cases[0], &result.CapacitySearch{HighestHeld: 150_000, BrokeAt: 160_000,
		Steps: make([]result.CapacityStep, 7)})
	applyCapacity(&s.Cases[1], &result.CapacitySearch{HighestHeld: 90_000, Steps: make([]result.CapacityStep, 20),
		Warnings: []string{"the search stopped at its most steps before the bracket closed"}})
	s.Cases[1].Run.Warnings = []string{"client and server share the machine's cores"}
	var b bytes.Buffer
	require.NoError(t, Write(&b, s))
	testenv.Golden(t, "enhanced-capacity.golden", b.Bytes())
	assert.Contains(t, b.String(), "capacity at p99<2ms")
	assert.Contains(t, b.String(), "held 150000/s, broke at 160000/s, 7 step(s)")
}

// TestLatencyCells: each measured operation's average and p99 beside the
// published ones, "-" where the whitepaper has none for it.
func TestLatencyCells(t *testing.T) {
	c := result.WhitepaperCase{
		Measured:  result.WhitepaperFigures{Latency: []result.OpLatency{{Op: "READ", AvgUS: 410.4, P99US: 900}, {Op: "SCAN", AvgUS: 20, P99US: 80}}},
		Reference: result.WhitepaperFigures{Latency: []result.OpLatency{{Op: "READ", AvgUS: 473, P99US: 687}}},
	}
	assert.Equal(t, "  READ avg 410 (473) p99 900 (687)  SCAN avg 20 (-) p99 80 (-)", latencyCells(c))
	assert.Empty(t, latencyCells(result.WhitepaperCase{}))
}
