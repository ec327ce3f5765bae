package bitmap

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestRenderGolden holds a sweep's summary (targets, each point's
// memory, cross-check and operations, where each structure wins and the
// crossovers) to its golden file, rendered from testdata/sweep.json
// ('tairbench bitmap compare --cardinality 1e3,1e5 --keys 2 -d 1 -c 2
// --probes 20 --json', its runs trimmed to the totals the summary reads).
func TestRenderGolden(t *testing.T) {
	doc, err := result.ReadFile(filepath.Join("testdata", "sweep.json"))
	require.NoError(t, err)
	bc := doc.(*result.BitmapComparison)
	var b bytes.Buffer
	writeTargets(&b, bc)
	for i := range bc.Points {
		writePoint(&b, i+1, &bc.Points[i], bc.Config.Connections)
	}
	writeSweep(&b, bc)
	testenv.Golden(t, "sweep.golden", b.Bytes())
}

// words are a small generated comparison.
func words() Words {
	own := common.Defaults()
	own.Seed, own.Timeout = 1, 30*time.Second
	return Words{Options: own, Shape: "uniform", Cardinalities: "1000", Universe: "2^20", Keys: 2, Block: 65536, RunLength: 1000,
		Connections: 2, Probes: 10, MaxMemory: "2GiB", IDsFormat: "text", Duration: time.Second}
}

// TestMainRefuses: words that cannot run are refused, each with its
// reason, before any server starts or any ID is loaded.
func TestMainRefuses(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(w *Words)
		wantErr string
	}{
		{"a bad memory bound", func(w *Words) { w.MaxMemory = "lots" }, "--max-memory"},
		{"a bad universe", func(w *Words) { w.Universe = "2^x" }, "--universe"},
		{"a bad cardinality", func(w *Words) { w.Cardinalities = "1e3,many" }, "--cardinality"},
		{"more IDs than the universe holds", func(w *Words) { w.Cardinalities = "1e7"; w.Universe = "1000" }, "--cardinality 10000000, --universe 1000"},
		{"an unknown shape", func(w *Words) { w.Shape = "spiral" }, "--shape spiral"},
		{"a missing ID file", func(w *Words) { w.IDs = []string{filepath.Join(t.TempDir(), "none.txt")} }, "nothing loaded"},
		{"a key without its address", func(w *Words) { w.FromKeys = []string{"tags:1"} }, "want HOST:PORT/KEY"},
		{"two servers for TairRoaring", func(w *Words) { w.Embedded, w.Roaring = true, "127.0.0.1:1" }, "--embedded and --roaring 127.0.0.1:1"},
		{"no time for a request", func(w *Words) { w.Timeout = 0 }, "--timeout 0s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := words()
			tc.edit(&w)
			io, _, errs := harness.Captured("test")
			err := Main(context.Background(), w, io)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.NotContains(t, errs.String(), "listening", "no server was started")
		})
	}
}

// TestPlanOnlyStartsNothing: --plan, and --dry-run alike, print the bytes
// each structure would take and start no server.
func TestPlanOnlyStartsNothing(t *testing.T) {
	for _, dry := range []bool{false, true} {
		w := words()
		w.PlanOnly, w.DryRun = !dry, dry
		w.Cardinalities = "1e3,1e5"
		io, out, errs := harness.Captured("test")
		require.NoError(t, Main(context.Background(), w, io))
		for _, want := range []string{"tairroaring", "redis-bitmap", "redis-set"} {
			assert.Contains(t, out.String()+errs.String(), want)
		}
		assert.Contains(t, errs.String(), "nothing loaded")
		assert.NotContains(t, errs.String(), "listening")
	}
}

// TestOwnOptions: the seed 0 draws a new one (recorded), the timeout
// bounds both targets, and server statistics are on unless turned off.
func TestOwnOptions(t *testing.T) {
	w := words()
	w.Seed, w.Timeout = 0, 7*time.Second
	o, err := w.options(context.Background())
	require.NoError(t, err)
	assert.NotZero(t, o.Seed, "seed 0 draws a new one, which the result records")
	assert.Equal(t, 7*time.Second, o.Roaring.Timeout)
	assert.Equal(t, 7*time.Second, o.Redis.Timeout)
	assert.True(t, o.ServerStats)
	w.NoServerStats = true
	o, err = w.options(context.Background())
	require.NoError(t, err)
	assert.False(t, o.ServerStats)
}
