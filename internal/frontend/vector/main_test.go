package vector

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// words are a small clustered run on TairVector in the embedded server.
func words(json string) Words {
	own := common.Defaults()
	own.Embedded, own.Seed, own.JSON = true, 1, json
	return Words{Options: own, Server: target.Options{Host: "127.0.0.1", Port: 6379, Protocol: 2},
		Engines: "tairvector", Index: "vector-test",
		Data:      DataSpec{Data: "clustered", N: 400, NQ: 20, Dims: 8, Centres: 10, Metric: "L2", K: 10},
		Algorithm: "HNSW", M: 16, EfConstruct: 100, EfSearch: "10,40", NumCandidates: "10", Connections: 2, LoadConnections: 2,
		Batch: 50, Duration: 300 * time.Millisecond, StreamInitial: 0.5, StreamInsertRate: 1000, StreamSearchRate: 100}
}

func testIO() (harness.IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errs bytes.Buffer
	return harness.IO{Out: &out, Err: &errs, In: bytes.NewReader(nil), Version: "test"}, &out, &errs
}

// TestMainRefuses: words that cannot run are refused, each with its
// reason, before the embedded server starts.
func TestMainRefuses(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(w *Words)
		wantErr string
	}{
		{"no duration", func(w *Words) { w.Duration = 0 }, "--duration"},
		{"no time for a request", func(w *Words) { w.Timeout = 0 }, "--timeout 0s"},
		{"an unknown algorithm", func(w *Words) { w.Algorithm = "IVF" }, `--algorithm "IVF"`},
		{"m out of Tair's range", func(w *Words) { w.M = 101 }, "--m must be 1..100"},
		{"ef-construct out of range", func(w *Words) { w.EfConstruct = 0 }, "--ef-construct 1..1000"},
		{"no connections", func(w *Words) { w.Connections = 0 }, "at least 1"},
		{"a negative rate", func(w *Words) { w.Rate = -1 }, "must not be negative"},
		{"a bad sweep", func(w *Words) { w.EfSearch = "10,x" }, "--ef-search"},
		{"a sweep past Tair's range", func(w *Words) { w.EfSearch = "10,2000" }, "Tair takes 1..1000"},
		{"a bad candidates sweep", func(w *Words) { w.NumCandidates = "0" }, "--num-candidates"},
		{"an unknown engine", func(w *Words) { w.Engines = "milvus" }, "milvus"},
		{"an unknown metric", func(w *Words) { w.Data.Metric = "HAMMING" }, `--metric "HAMMING"`},
		{"k out of range", func(w *Words) { w.Data.K = 0 }, "-k 0"},
		{"clustered data without a shape", func(w *Words) { w.Data.Dims = 0 }, "clustered data needs"},
		{"a selectivity of 0", func(w *Words) { w.FilterSelectivity = "0" }, "--filter-selectivity \"0\": want shares above 0 and at most 1"},
		{"a selectivity above 1", func(w *Words) { w.FilterSelectivity = "0.1,1.5" }, "--filter-selectivity \"0.1,1.5\""},
		{"a selectivity twice", func(w *Words) { w.FilterSelectivity = "0.1,0.1" }, "each once"},
		{"a selectivity that is no number", func(w *Words) { w.FilterSelectivity = "1%" }, "--filter-selectivity \"1%\""},
		{"a stream with nothing to stream", func(w *Words) { w.Stream, w.StreamInitial = true, 1 }, "--stream-initial 1: want a share above 0 and below 1"},
		{"a stream at no rate", func(w *Words) { w.Stream, w.StreamInsertRate = true, 0 }, "--stream-insert-rate and --stream-search-rate must be above 0"},
		{"a stream beside filters", func(w *Words) { w.Stream, w.FilterSelectivity = true, "0.1" }, "--stream runs in place of the sweeps: give --filter-selectivity"},
		{"a stream beside an open loop", func(w *Words) { w.Stream, w.Rate = true, 10 }, "--stream runs in place of the sweeps: --rate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := words("")
			tc.edit(&w)
			io, _, errs := testIO()
			err := Main(context.Background(), w, io)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.NotContains(t, errs.String(), "listening", "no server was started")
		})
	}
}

// TestMainOnTheEmbeddedServer sweeps TairVector in the embedded server:
// each ef_search value is a point with its recall and rate, the result
// file holds the document, and the summary names the target as not Tair.
func TestMainOnTheEmbeddedServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vector.json")
	io, out, errs := testIO()
	require.NoError(t, Main(context.Background(), words(path), io), errs.String())
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	vb, ok := doc.(*result.VectorBench)
	require.True(t, ok, "a %T", doc)
	require.Len(t, vb.Engines, 1)
	e := vb.Engines[0]
	assert.Equal(t, "tairvector", e.Engine)
	require.Len(t, e.Points, 2, "ef_search 10 and 40")
	for i, p := range e.Points {
		assert.Equal(t, []int{10, 40}[i], p.Param)
		assert.Positive(t, p.QPS)
		assert.InDelta(t, 0.5, p.Recall, 0.5, "a share")
		assert.NotNil(t, p.Closed.Server, "the server's INFO is sampled unless --no-server-stats")
	}
	assert.NotNil(t, e.Load.Server)
	assert.GreaterOrEqual(t, e.Points[1].Recall, e.Points[0].Recall, "a wider search finds no fewer")
	assert.Contains(t, out.String(), "not Tair")
	assert.Contains(t, vb.Config.Source, "seed 1")
}

// A selectivity that keeps fewer vectors than k is refused before
// anything is loaded.
func TestFilterKeepingFewerThanKRefused(t *testing.T) {
	w := words("")
	w.FilterSelectivity = "0.0001"
	io, _, errs := testIO()
	err := Main(context.Background(), w, io)
	require.Error(t, err, errs.String())
	assert.Contains(t, err.Error(), "--filter-selectivity 0.0001 keeps 1 of")
	assert.Contains(t, err.Error(), "fewer than k=10")
}

func TestQuantileAndVisibility(t *testing.T) {
	ms := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, x := range n {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	assert.Equal(t, 50*time.Millisecond, quantile(ms(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 0.5))
	assert.Equal(t, 100*time.Millisecond, quantile(ms(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 0.99))
	assert.Zero(t, quantile(nil, 0.5))
	v := visibility(ms(30, 10, 20), 1)
	assert.Equal(t, 3, v.Found)
	assert.Equal(t, 1, v.NotFound)
	assert.Equal(t, 20.0, v.P50MS)
	assert.Equal(t, 30.0, v.MaxMS)
	assert.Equal(t, 1000/probeRate, v.ResolutionMS)
}

// TestOwnOptions: --seed 0 draws a new seed, which the data's source
// records; --no-server-stats samples nothing.
func TestOwnOptions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vector.json")
	w := words(path)
	w.Seed, w.NoServerStats, w.EfSearch = 0, true, "10"
	io, _, errs := testIO()
	require.NoError(t, Main(context.Background(), w, io), errs.String())
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	vb := doc.(*result.VectorBench)
	assert.NotContains(t, vb.Config.Source, "seed 0")
	assert.Regexp(t, `seed [1-9][0-9]*`, vb.Config.Source)
	e := vb.Engines[0]
	assert.Nil(t, e.Load.Server)
	assert.Nil(t, e.Points[0].Closed.Server)
}

// TestDryRun: --dry-run prints the insert and every sweep point of each
// engine, where it would run, and starts nothing; the suite's absent
// cases are named and planned no run.
func TestDryRun(t *testing.T) {
	w := words("")
	w.DryRun, w.Engines, w.ES, w.Rate = true, "tairvector,elasticsearch", "http://127.0.0.1:9", 50
	io, out, errs := testIO()
	require.NoError(t, Main(context.Background(), w, io))
	assert.NotContains(t, errs.String(), "listening")
	text := out.String()
	for _, want := range []string{"dry run of tairbench vector: nothing is sent", "clustered: 400 base + 20 query vectors",
		"tairvector insert", "tairvector ef_search=40", "elasticsearch num_candidates=10", "→ http://127.0.0.1:9",
		"open loop at 50 requests/s", "not Tair", "total: about 1.8s: 8 runs, 1.8s of timed runs, plus 2 run(s) until their input ends, not counted"} {
		assert.Contains(t, text, want)
	}
	// Filtered sweeps are planned too, and counted in the time.
	w.FilterSelectivity, w.Rate = "0.01", 0
	out.Reset()
	require.NoError(t, Main(context.Background(), w, io))
	assert.Contains(t, out.String(), "tairvector ef_search=40 1 %")
	assert.Contains(t, out.String(), "k=10 queries kept to 1 % of the vectors (recall first, untimed)")
	assert.Contains(t, out.String(), "total: about 1.8s: 8 runs")
	w.FilterSelectivity = ""
	w.ES = ""
	assert.ErrorContains(t, Main(context.Background(), w, io), "--engines names elasticsearch: give --es URL")

	sw := SuiteWords{Words: words(""), Cases: "random-s-100,mnist-784-euclidean"}
	sw.DryRun, sw.Data.Dir = true, t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(sw.Data.Dir, "random-s-100"), 0o755))
	io, out, _ = testIO()
	require.NoError(t, SuiteMain(context.Background(), sw, io))
	text = out.String()
	assert.Contains(t, text, "mnist-784-euclidean: FLAT L2")
	assert.Contains(t, text, "(absent: named and skipped)")
	assert.Contains(t, text, "tairvector exact", "FLAT sweeps nothing")
	assert.Contains(t, text, "total: about 300ms: 2 runs, 300ms of timed runs, plus 1 run(s) until their input ends", "the present case's insert and its exact search")
}

// TestSuiteRefusesJSON: the suite writes a result per case, so --json
// (one file) is refused, naming --json-dir.
func TestSuiteRefusesJSON(t *testing.T) {
	io, _, _ := testIO()
	err := SuiteMain(context.Background(), SuiteWords{Words: words("out.json")}, io)
	assert.ErrorContains(t, err, "give --json-dir DIR")
}

// TestSuiteMainRefusesAnUnknownCase names the case it does not know.
func TestSuiteMainRefusesAnUnknownCase(t *testing.T) {
	io, _, _ := testIO()
	err := SuiteMain(context.Background(), SuiteWords{Words: words(""), Cases: "sift-128-euclidean,sift-1b"}, io)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown case "sift-1b"`)
}

// TestRender holds the summary of a saved sweep to its golden file.
func TestRender(t *testing.T) {
	doc, err := result.ReadFile(filepath.Join("testdata", "vector.json"))
	require.NoError(t, err)
	var b bytes.Buffer
	Render(&b, doc.(*result.VectorBench))
	testenv.Golden(t, "render.golden", b.Bytes())
}

func TestIntList(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{"10", []int{10}, false},
		{"10, 20,40", []int{10, 20, 40}, false},
		{"", nil, true},
		{"10,,20", nil, true},
		{"0", nil, true},
		{"-5", nil, true},
		{"ten", nil, true},
	}
	for _, tc := range tests {
		got, err := intList("ef-search", tc.in)
		if tc.wantErr {
			assert.Error(t, err, "%q", tc.in)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, got)
	}
}

// TestResultPathsCheckedFirst: a result file in a folder that does not
// exist, or a --json-dir that cannot be made, is refused before any data
// is made or server started.
func TestResultPathsCheckedFirst(t *testing.T) {
	io, _, errs := testIO()
	err := Main(context.Background(), words(filepath.Join(t.TempDir(), "no", "v.json")), io)
	assert.ErrorContains(t, err, "tairbench creates no folders")
	file := filepath.Join(t.TempDir(), "a-file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	err = SuiteMain(context.Background(), SuiteWords{Words: words(""), JSONDir: filepath.Join(file, "dir")}, io)
	assert.ErrorContains(t, err, "--json-dir")
	assert.NotContains(t, errs.String(), "listening")
}

// TestUnreachableEngineFirst: an engine that cannot be reached stops the
// run before any engine is loaded.
func TestUnreachableEngineFirst(t *testing.T) {
	w := words("")
	w.Engines, w.ES = "tairvector,elasticsearch", "http://127.0.0.1:1"
	io, out, errs := testIO()
	err := Main(context.Background(), w, io)
	require.Error(t, err)
	assert.NotContains(t, out.String()+errs.String(), "loaded", "nothing was loaded into TairVector first")
}
