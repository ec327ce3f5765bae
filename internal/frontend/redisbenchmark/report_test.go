package redisbenchmark

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestReportGolden holds redis-benchmark's three report shapes (the full
// report, -q and --csv) to golden files, for the tests of
// testdata/run.json ('tairbench redis-benchmark --embedded -t set,get -n
// 5000 -P 4 --json').
func TestReportGolden(t *testing.T) {
	doc, err := result.ReadFile(filepath.Join("testdata", "run.json"))
	require.NoError(t, err)
	tests := doc.(*result.Compat).Tests
	require.Len(t, tests, 2)
	no := "no"
	for _, shape := range []struct{ name, flag string }{{"full", ""}, {"quiet", "-q"}, {"csv", "--csv"}} {
		t.Run(shape.name, func(t *testing.T) {
			args := []string{"-t", "set,get", "-n", "5000", "-P", "4"}
			if shape.flag != "" {
				args = append(args, shape.flag)
			}
			o, err := Parse(args, io.Discard)
			require.NoError(t, err)
			var b bytes.Buffer
			for _, ts := range tests {
				require.NoError(t, Report(&b, o, ts.Name, ts.Run, HostConfig{Save: &no, AppendOnly: &no}))
			}
			testenv.Golden(t, "report-"+shape.name+".golden", b.Bytes())
		})
	}
}

// TestRunOnTheEmbeddedServer runs a redis-benchmark line on the embedded
// server: each test's requests counted, its -q line printed.
func TestRunOnTheEmbeddedServer(t *testing.T) {
	args := []string{"--embedded", "-t", "set,get,ping_mbulk", "-n", "3000", "-c", "4", "-q"}
	hio, out, errs := harness.Captured("test")
	o, err := Parse(args, hio.Err)
	require.NoError(t, err)
	doc, err := Run(context.Background(), o, args, hio)
	require.NoError(t, err, errs.String())
	require.Len(t, doc.Tests, 3)
	for _, ts := range doc.Tests {
		assert.Equal(t, int64(3000), ts.Run.Totals.Ops, ts.Name)
		assert.Zero(t, ts.Run.Totals.Errors, ts.Name)
		assert.Contains(t, out.String(), ts.Name+": ")
	}
	quiet := 0
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasSuffix(l, " msec") && strings.Contains(l, " requests per second, p50=") {
			quiet++
		}
	}
	assert.Equal(t, 3, quiet, "one -q line a test, each followed by tairbench's own:\n%s", out.String())
}

// TestProgressLine: redis-benchmark's per-second line, "-nan" for a
// second without a reply as redis-benchmark prints it.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	line := benchmarkProgress(&b, "SET")
	mean := 250.0
	line(stats.Progress{Interval: result.Interval{OpsPerSec: 1234.5, MeanUS: &mean}, OpsPerSec: 1000, MeanUS: 300})
	line(stats.Progress{Interval: result.Interval{}, OpsPerSec: 900, MeanUS: 310})
	assert.Equal(t, "SET: rps=1234.5 (overall: 1000.0) avg_msec=0.250 (overall: 0.300)\n"+
		"SET: rps=0.0 (overall: 900.0) avg_msec=-nan (overall: 0.310)\n", b.String())
}
