package ycsb

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestReportGolden holds YCSB's end-of-run report to golden files for a
// load (one operation, INSERT) and a run of workload A (READ and UPDATE):
// testdata/load.json and run.json ('tairbench ycsb load|run redis -s -P
// workloads/workloada -p recordcount=1000 [-p operationcount=2000] -p
// redis.command_group=string -threads 2 --embedded --json', the run on a
// fresh server: its reads miss).
func TestReportGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []string
	}{{"load", []string{"INSERT"}}, {"run", []string{"READ", "UPDATE"}}} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := result.ReadFile(filepath.Join("testdata", tc.name+".json"))
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, Report(&b, doc.(*result.Compat).Tests[0].Run, tc.ops))
			testenv.Golden(t, "report-"+tc.name+".golden", b.Bytes())
		})
	}
}

// TestLoadOnTheEmbeddedServer: a load inserts every record, prints YCSB's
// report and writes tairbench's document.
func TestLoadOnTheEmbeddedServer(t *testing.T) {
	hio, out, errs := harness.Captured("test")
	path := filepath.Join(t.TempDir(), "y.json")
	args := []string{"load", "redis", "-s", "-P", "workloads/workloadc", "-p", "recordcount=300", "-p", "redis.command_group=string",
		"-threads", "2", "--embedded", "--json", path}
	c, err := Parse(args)
	require.NoError(t, err)
	doc, err := Run(context.Background(), c, args, hio)
	require.NoError(t, err, errs.String())
	run := doc.Tests[0].Run
	assert.Equal(t, int64(300), run.Totals.Ops)
	assert.Zero(t, run.Totals.Errors)
	assert.Contains(t, out.String(), "[OVERALL], Throughput(ops/sec)")
	assert.Contains(t, out.String(), "[INSERT], Return=OK, 300")
	saved, err := result.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "ycsb", saved.(*result.Compat).Tool)
}
