package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/tairbench/tairbench/internal/store"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// storeRun writes a run of n seconds (its series, n rows) to path.
func storeRun(t *testing.T, path string, start time.Time, n int) {
	t.Helper()
	r := &result.Run{Header: result.Header{Schema: result.SchemaRun, Version: "test", StartedAt: start}, Command: "GET k"}
	for i := range n {
		v := float64(i)
		r.Series = append(r.Series, result.Interval{Second: i, Ops: 10, OpsPerSec: 10, MeanUS: &v, P50US: &v, P99US: &v})
	}
	r.Totals.Ops = int64(10 * n)
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, result.EncodeJSON(f, r))
	require.NoError(t, f.Close())
}

// atOnce runs f(0) … f(n-1) at once and requires that none failed.
func atOnce(t *testing.T, n int, f func(i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}

// tairbench runs the binary with args; its output is in the error.
func tairbench(t *testing.T, args ...string) error {
	out, err := exec.Command(binary(t), args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("tairbench %v: %w: %s", args, err, out)
	}
	return nil
}

// seriesPerRun is each stored run's count of per-second rows.
func seriesPerRun(t *testing.T, db string) map[int64]int {
	t.Helper()
	driver := "sqlite"
	if strings.HasPrefix(db, "postgres://") {
		driver = "pgx"
	}
	d, err := sql.Open(driver, db)
	require.NoError(t, err)
	defer d.Close()
	rows, err := d.Query(`SELECT runs.id, count(series.second) FROM runs LEFT JOIN series ON series.run_id = runs.id GROUP BY runs.id`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		require.NoError(t, rows.Scan(&id, &n))
		out[id] = n
	}
	require.NoError(t, rows.Err())
	return out
}

// TestStoreWritersAtOnce: 16 processes storing a result each into one
// store at the same time lose none, and each result has all its rows.
func TestStoreWritersAtOnce(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "results.db")
	paths := make([]string, 16)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		storeRun(t, paths[i], time.Unix(1_800_000_000+int64(i), 0), 600)
	}
	atOnce(t, 16, func(i int) error {
		return tairbench(t, "store", "import", paths[i], "--store", db, "--tag", fmt.Sprintf("shard=%d", i))
	})
	got := seriesPerRun(t, db)
	require.Len(t, got, 16, "no result lost")
	for id, n := range got {
		assert.Equal(t, 600, n, "run %d has all its seconds", id)
	}
}

// TestKilledWriterLeavesNoPartialResult: a writer killed while it stores
// a large result leaves either the whole result or none of it, and the
// store opens and takes the next result: in SQLite and in PostgreSQL.
func TestKilledWriterLeavesNoPartialResult(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.json"), filepath.Join(dir, "big.json")
	storeRun(t, small, time.Unix(1_800_000_000, 0), 10)
	storeRun(t, big, time.Unix(1_800_000_100, 0), 200_000)
	for _, db := range []string{filepath.Join(dir, "results.db"), testenv.StartPostgres(t)} {
		out, err := exec.Command(binary(t), "store", "import", small, "--store", db).CombinedOutput()
		require.NoError(t, err, string(out))
		for _, after := range []time.Duration{300 * time.Millisecond, 700 * time.Millisecond, 1500 * time.Millisecond} {
			cmd := exec.Command(binary(t), "store", "import", big, "--store", db)
			require.NoError(t, cmd.Start())
			time.Sleep(after)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			for id, n := range seriesPerRun(t, db) {
				assert.Contains(t, []int{10, 200_000}, n, "run %d after a kill at %s: all its seconds or none of it", id, after)
			}
		}
		out, err = exec.Command(binary(t), "store", "import", small, "--store", db).CombinedOutput()
		require.NoError(t, err, "the store takes the next result: %s", out)
	}
}

// TestShardsMergeInTheStore: 16 shards of one run (--shard i/16, one
// --start-at) write into an SQLite store at once, and the same 16 files
// into a PostgreSQL store from 16 processes at once. In each, the last
// shard in stores the merged run, whose counts and percentiles are those
// of 'tairbench merge' of the same files.
func TestShardsMergeInTheStore(t *testing.T) {
	r := testenv.StartRedis(t)
	pg := testenv.StartPostgres(t)
	dir := t.TempDir()
	sqlite := filepath.Join(dir, "results.db")
	paths := runShards(t, 16, "redis", "-port", strconv.Itoa(r.Port), "-p", "1", "--rate", "100", "-d", "2",
		"-command", "GET k-__RAND__", "--no-server-stats", "--store", sqlite, "--tag", "job=nightly")
	atOnce(t, 16, func(i int) error {
		return tairbench(t, "store", "import", paths[i], "--store", pg, "--tag", "job=nightly")
	})
	mergedPath := filepath.Join(dir, "merged.json")
	require.NoError(t, tairbench(t, append(append([]string{"merge"}, paths...), "-o", mergedPath)...))
	want := runFile(t, mergedPath)

	for _, addr := range []string{sqlite, pg} {
		st, err := store.Open(context.Background(), addr)
		require.NoError(t, err)
		rows, err := st.List(context.Background(), store.Filter{})
		require.NoError(t, err)
		require.Len(t, rows, 17, "16 shards and the run they merged into, in %s", st.Name())
		var merged []store.Row
		for _, row := range rows {
			if row.Shard == "" {
				merged = append(merged, row)
			}
		}
		require.Len(t, merged, 1)
		doc, err := st.Get(context.Background(), merged[0].ID)
		require.NoError(t, err)
		got := doc.(*result.Run)
		assert.Equal(t, want.Totals.Ops, got.Totals.Ops)
		assert.Equal(t, want.Totals.Latency, got.Totals.Latency)
		assert.Equal(t, want.Totals.CorrectedLatency, got.Totals.CorrectedLatency)
		assert.Equal(t, want.Histogram, got.Histogram)
		assert.Equal(t, want.HistogramCorrected, got.HistogramCorrected)
		assert.Equal(t, want.Series, got.Series)
		assert.Equal(t, map[string]string{"job": "nightly"}, merged[0].Tags)
		require.NoError(t, st.Close())
	}
}
