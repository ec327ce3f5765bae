package memtier

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// saved is the run of testdata/run.json ('tairbench memtier --embedded -n
// 2000 -c 4 -t 2 --ratio 1:1 --key-maximum 1000 --json').
func saved(t *testing.T) *result.Run {
	t.Helper()
	doc, err := result.ReadFile(filepath.Join("testdata", "run.json"))
	require.NoError(t, err)
	c := doc.(*result.Compat)
	require.Len(t, c.Tests, 1)
	return c.Tests[0].Run
}

// TestTableGolden holds memtier's ALL STATS table (with and without its
// latency distribution, with other percentiles) to golden files.
func TestTableGolden(t *testing.T) {
	run := saved(t)
	tests := []struct {
		name string
		args []string
	}{
		{"table", []string{"-n", "2000", "--hide-histogram"}},
		{"table-histogram", []string{"-n", "2000"}},
		{"table-percentiles", []string{"-n", "2000", "--hide-histogram", "--print-percentiles", "50,90,99.99"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Parse(tc.args)
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, Table(&b, o, run))
			testenv.Golden(t, tc.name+".golden", b.Bytes())
		})
	}
}

// TestJSONShape: memtier's --json-out-file document has its ALL STATS
// section per operation type and in total, each with memtier's keys.
func TestJSONShape(t *testing.T) {
	o, err := Parse([]string{"-n", "2000"})
	require.NoError(t, err)
	doc, err := JSON(o, []string{"-n", "2000"}, saved(t))
	require.NoError(t, err)
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	var got struct {
		All map[string]map[string]any `json:"ALL STATS"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	all := got.All
	require.NotNil(t, all, "%s", raw)
	for _, typ := range []string{"Sets", "Gets", "Totals"} {
		require.Contains(t, all, typ)
		for _, key := range []string{"Count", "Ops/sec", "Average Latency"} {
			assert.Contains(t, all[typ], key, "%s.%s", typ, key)
		}
	}
	assert.Equal(t, float64(saved(t).Totals.Ops), all["Totals"]["Count"])
}

// TestRunOnTheEmbeddedServer runs a memtier line on the embedded server:
// every request counted, the table printed, tairbench's document returned.
func TestRunOnTheEmbeddedServer(t *testing.T) {
	args := []string{"--embedded", "-n", "500", "-c", "2", "-t", "2", "--ratio", "1:4", "--key-maximum", "100", "--hide-histogram", "--seed", "1"}
	o, err := Parse(args)
	require.NoError(t, err)
	io, out, errs := harness.Captured("test")
	doc, err := Run(context.Background(), o, args, io)
	require.NoError(t, err, errs.String())
	require.Len(t, doc.Tests, 1)
	run := doc.Tests[0].Run
	assert.Equal(t, int64(500*2*2), run.Totals.Ops, "-n per client, 2 clients a thread, 2 threads")
	assert.Zero(t, run.Totals.Errors)
	assert.Contains(t, out.String(), "ALL STATS")
	assert.Contains(t, out.String(), "Totals")
}
