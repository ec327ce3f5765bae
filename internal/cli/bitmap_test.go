package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestBitmapCompareIDFiles(t *testing.T) {
	r := testenv.StartRedis(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("1\n2\n-7\n"), 0o644))
	good := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(good, []byte("10\n20\n20\n30\n1000\n"), 0o644))
	other := filepath.Join(dir, "b.txt")
	require.NoError(t, os.WriteFile(other, []byte("20\n30\n40\n"), 0o644))

	res := runCLI(context.Background(), "bitmap", "compare", "--redis", r.Addr, "--ids", good, "--ids", bad)
	require.Equal(t, 1, res.code, res.err)
	assert.Contains(t, res.err, `bad.txt: line 3: "-7" is negative`)
	assert.Contains(t, res.err, "nothing loaded")
	assert.Equal(t, "0", testenv.Do(t, r.Addr, "DBSIZE"))

	garbage := filepath.Join(dir, "garbage.txt")
	require.NoError(t, os.WriteFile(garbage, []byte("1\nuser-2\n"), 0o644))
	res = runCLI(context.Background(), "bitmap", "compare", "--redis", r.Addr, "--ids", garbage)
	require.Equal(t, 1, res.code, res.err)
	assert.Contains(t, res.err, `garbage.txt: line 2: "user-2" is not a whole number`)

	js := filepath.Join(dir, "bitmap.json")
	res = runCLI(context.Background(), "bitmap", "compare", "--ids", good, "--ids-format", "csv")
	require.Equal(t, 1, res.code)
	assert.Contains(t, res.err, `unknown format "csv"`)

	res = runCLI(context.Background(), "bitmap", "compare", "--redis", r.Addr, "--ids", good, "--ids", other, "-d", "0.1", "-c", "1",
		"--probes", "5", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "1 duplicate IDs counted once")
	assert.Contains(t, res.out, "redis-bitmap  on "+r.Addr)
	doc, err := result.ReadFile(js)
	require.NoError(t, err)
	bm, ok := doc.(*result.BitmapComparison)
	require.True(t, ok)
	assert.Equal(t, uint64(4), bm.Points[0].Keys[0].Cardinality)

	html := filepath.Join(dir, "r.html")
	res = runCLI(context.Background(), "report", js, "-o", html)
	require.Equal(t, 0, res.code, res.err)
	page, err := os.ReadFile(html)
	require.NoError(t, err)
	assert.Contains(t, string(page), "Bitmap comparison")
	assert.Contains(t, string(page), "not Tair")

	res = runCLI(context.Background(), "compare", js, js)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "memory bytes")
	assert.Contains(t, res.out, "1.00")
}

func TestBitmapComparePlanOnly(t *testing.T) {
	res := runCLI(context.Background(), "bitmap", "compare", "--cardinality", "1e5", "--universe", "2^32", "--keys", "4", "--plan", "--max-memory", "4GiB")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.err, "redis-bitmap  about")
	assert.Contains(t, res.err, "GiB")
	assert.Contains(t, res.err, "plan only")

	assert.Contains(t, res.err, "generating point 1: 4 keys of up to 100000 IDs below 4294967296 (uniform)")
	assert.Regexp(t, `estimate: about [0-9.ms]+: 29 timed runs, [0-9.ms]+ with their start-up, the cross-check and the slow calls, and loading and reading back about`, res.err,
		"11 operations on 3 structures, less the 4 a structure cannot answer: each once, closed loop")

	// Every point is planned, each over the limit says what fits, and the
	// refusal says what would.
	res = runCLI(context.Background(), "bitmap", "compare", "--cardinality", "1e3,1e4,1e5", "--universe", "2^32", "--keys", "4", "--plan")
	require.Equal(t, 1, res.code)
	for _, want := range []string{"plan, point 1:", "plan, point 2:", "plan, point 3:", "above --max-memory 2.00 GiB, nothing loaded: ",
		"point 1 (1000 IDs below 4294967296) would take about 2.50 GiB, tairroaring and redis-set fit together; ",
		"point 3 (100000 IDs below 4294967296) would take about", "give --structures tairroaring,redis-set, raise --max-memory"} {
		assert.Contains(t, res.err, want)
	}

	res = runCLI(context.Background(), "bitmap", "compare", "--cardinality", "1e9", "--universe", "1e6", "--plan")
	require.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "cardinality 1000000000 is above the universe 1000000")
}

func TestRoaringStatDocument(t *testing.T) {
	js := filepath.Join(t.TempDir(), "stat.json")
	res := runCLI(context.Background(), "roaring", "stat", "--embedded", "--stat-max-card", "20000", "--stat-steps", "2", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	doc, err := result.ReadFile(js)
	require.NoError(t, err)
	st, ok := doc.(*result.RoaringStat)
	require.True(t, ok)
	assert.True(t, st.Target.NotTair())
	html := filepath.Join(t.TempDir(), "r.html")
	res = runCLI(context.Background(), "report", js, "-o", html)
	require.Equal(t, 0, res.code, res.err)
}

// TestBitmapFromKeysAndOpenLoop: --from-key reads a Redis set and a
// bitmap as the user's keys; --rate adds an open-loop run.
func TestBitmapFromKeysAndOpenLoop(t *testing.T) {
	src := testenv.StartRedis(t)
	testenv.Do(t, src.Addr, "SADD", "tags:a", "3", "7", "1000", "65536")
	testenv.Do(t, src.Addr, "SETBIT", "tags:b", "7", "1")
	testenv.Do(t, src.Addr, "SETBIT", "tags:b", "65536", "1")
	r := testenv.StartRedis(t)
	js := filepath.Join(t.TempDir(), "b.json")
	res := runCLI(context.Background(), "bitmap", "compare", "--redis", r.Addr, "--from-key", src.Addr+"/tags:a",
		"--from-key", src.Addr+"/tags:b", "--ops", "membership,and-card-2", "-d", "0.2", "-c", "1", "--rate", "200", "--probes", "5", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	doc, err := result.ReadFile(js)
	require.NoError(t, err)
	bm := doc.(*result.BitmapComparison)
	p := bm.Points[0]
	assert.Equal(t, uint64(4), p.Keys[0].Cardinality)
	assert.Contains(t, p.Keys[0].Source, "key tags:a (redis-set)")
	assert.Contains(t, p.Keys[1].Source, "key tags:b (redis-bitmap)")
	for _, c := range p.Crosscheck {
		assert.Equal(t, c.Probes, c.Agreed, c.Operation)
	}
	require.NotNil(t, p.Operations[0].Results[0].Open, "the open-loop run")
	assert.NotNil(t, p.Operations[0].Results[0].Open.Totals.CorrectedLatency)

	res = runCLI(context.Background(), "bitmap", "compare", "--redis", r.Addr, "--from-key", src.Addr+"/nokey")
	require.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "key nokey does not exist")
}

// TestBitmapPartialLoadStops: a server that refuses part of the load
// (maxmemory) stops the comparison with the reason.
func TestBitmapPartialLoadStops(t *testing.T) {
	r := testenv.StartRedis(t, "--maxmemory", "3mb", "--maxmemory-policy", "noeviction")
	res := runCLI(context.Background(), "bitmap", "compare", "--redis", r.Addr, "--structures", "redis-set",
		"--cardinality", "200000", "--universe", "2^24", "--keys", "1", "-d", "0.1")
	require.Equal(t, 3, res.code, res.err)
	assert.Contains(t, res.err, "load stopped, the comparison with it")
	assert.Contains(t, res.err, "OOM")
}
