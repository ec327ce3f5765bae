package threshold

import (
	"bytes"
	"encoding/xml"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in     string
		op     string
		metric string
		less   bool
		value  float64
		err    string
	}{
		{in: "p99<2ms", metric: "p99", less: true, value: 2000},
		{in: "p99.9 <= 1.5s", metric: "p99.9", less: true, value: 1.5e6},
		{in: "p999<900us", metric: "p99.9", less: true, value: 900},
		{in: "avg<1ms", metric: "mean", less: true, value: 1000},
		{in: "errors<0.1%", metric: "errors", less: true, value: 0.001},
		{in: "qps>50000", metric: "qps", value: 50000},
		{in: "GET:p99<1ms", op: "GET", metric: "p99", less: true, value: 1000},
		{in: "TR.GETBIT:max<10ms", op: "TR.GETBIT", metric: "max", less: true, value: 10000},
		{in: "p99<2", err: "a latency needs its unit"},
		{in: "errors<0.1", err: "errors take a percentage"},
		{in: "qps>5k", err: "qps takes a plain number"},
		{in: "p98<2ms", err: "want [OP:]METRIC<VALUE"},
		{in: "p99=2ms", err: "want [OP:]METRIC<VALUE"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			th, err := Parse(c.in)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.op, th.Op)
			assert.Equal(t, c.metric, th.Metric)
			assert.Equal(t, c.less, th.Less)
			assert.InDelta(t, c.value, th.Value, 1e-9)
		})
	}
}

func run() *result.Run {
	return &result.Run{Command: "GET k", Totals: result.Totals{Ops: 1000, Errors: 2, OpsPerSec: 5000,
		Latency: result.Latency{P50: 100, P99: 1500, Max: 9000, Mean: 200}},
		Operations: []result.Operation{{Name: "SET", Ops: 500, OpsPerSec: 2500, Latency: result.Latency{P99: 3000}}}}
}

func TestEvaluate(t *testing.T) {
	ts, err := ParseAll([]string{"p99<2ms", "p99<1ms", "errors<0.1%", "errors<=0.2%", "qps>4000", "SET:p99<2ms", "DEL:p99<2ms"})
	require.NoError(t, err)
	vs := Evaluate(ts, run())
	pass := map[string]bool{}
	for _, v := range vs {
		pass[v.Threshold] = v.Pass
	}
	assert.Equal(t, map[string]bool{"p99<2ms": true, "p99<1ms": false, "errors<0.1%": false, "errors<=0.2%": true,
		"qps>4000": true, "SET:p99<2ms": false, "DEL:p99<2ms": false}, pass)
	assert.Contains(t, vs[6].Note, "no operation DEL")
	assert.True(t, Failed(vs))

	// An open-loop run is judged from the intended start.
	r := run()
	r.Totals.CorrectedLatency = &result.Latency{P99: 5000}
	v := Evaluate(ts[:1], r)[0]
	assert.False(t, v.Pass)
	assert.Equal(t, "latency from the intended start", v.Note)
}

func TestLive(t *testing.T) {
	ts, err := ParseAll([]string{"qps>1000000", "GET:p99<1us", "p99<2ms"})
	require.NoError(t, err)
	p := stats.Progress{TotalOps: 100, P99US: 1500, Elapsed: 2 * time.Second}
	assert.Empty(t, Live(ts, p, 100), "floors and per-operation thresholds wait for the end")
	p.P99US = 2500
	assert.Contains(t, Live(ts, p, 100), "p99<2ms")
}

func TestWriteJUnit(t *testing.T) {
	ts, _ := ParseAll([]string{"p99<2ms", "p99<1ms"})
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, "redis", Evaluate(ts, run())))
	var s struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	require.NoError(t, xml.Unmarshal(b.Bytes(), &s))
	assert.Equal(t, 2, s.Tests)
	assert.Equal(t, 1, s.Failures)
	assert.Nil(t, s.Cases[0].Failure)
	require.NotNil(t, s.Cases[1].Failure)
	assert.Equal(t, "observed 1.500ms (latency from the send)", s.Cases[1].Failure.Message)
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99<2ms", "GET:errors<0.1%", "qps>5", "p99.9<=1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := Parse(s)
		if err == nil {
			require.NotEmpty(t, th.Metric)
		}
	})
}
