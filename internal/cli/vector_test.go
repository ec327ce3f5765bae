package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"codeberg.org/sbinet/npyio"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/vecdata"
	"github.com/tairbench/tairbench/pkg/result"
)

func readVector(t *testing.T, path string) *result.VectorBench {
	t.Helper()
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	vb, ok := doc.(*result.VectorBench)
	require.True(t, ok)
	return vb
}

// TestVectorEmbedded: FLAT is exact; HNSW is a graph whose recall rises
// with ef_search from below 1.
func TestVectorEmbedded(t *testing.T) {
	dir := t.TempDir()
	small := []string{"vector", "--embedded", "--data", "clustered", "--n", "20000", "--nq", "200", "--dims", "32",
		"--centres", "100", "-d", "300ms", "--truth-dir", filepath.Join(dir, "truth")}
	js := filepath.Join(dir, "flat.json")
	res := runCLI(context.Background(), append(small, "--algorithm", "FLAT", "--filter-selectivity", "0.01,0.5", "--json", js)...)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "tairbench's embedded server, not Tair, in this process")
	assert.Contains(t, res.out, "tairvector's figures come from tairbench's embedded server (Go, in this process), not Tair.")
	flat := readVector(t, js)
	require.Len(t, flat.Engines[0].Points, 1)
	assert.Equal(t, 1.0, flat.Engines[0].Points[0].Recall)
	assert.Greater(t, flat.Engines[0].Memory.Index, int64(20000*32*4))
	// Filtered FLAT is exact too: recall 1 against the exact nearest among
	// the 200 (1 %) and 10,000 (50 %) vectors the filters keep.
	assert.Equal(t, []float64{0.01, 0.5}, flat.Config.Selectivities)
	require.Len(t, flat.Engines[0].Filtered, 2)
	for i, f := range flat.Engines[0].Filtered {
		assert.Equal(t, []int{200, 10000}[i], f.Matching)
		assert.Equal(t, []string{"attr < 200", "attr < 10000"}[i], f.Filter)
		require.Len(t, f.Points, 1)
		assert.Equal(t, 1.0, f.Points[0].Recall, f.Filter)
		assert.Positive(t, f.Points[0].QPS)
	}
	assert.Regexp(t, `filtered search: every search kept to a share of the vectors[^\n]*\n.*\ntairvector +1 % +attr < 200 +- +1\.0000`, res.out)

	js = filepath.Join(dir, "hnsw.json")
	res = runCLI(context.Background(), append(small, "--ef-search", "10,200", "--m", "8", "--ef-construct", "40", "--json", js)...)
	require.Equal(t, 0, res.code, res.err)
	pts := readVector(t, js).Engines[0].Points
	require.Len(t, pts, 2)
	assert.Less(t, pts[0].Recall, 1.0)
	assert.GreaterOrEqual(t, pts[1].Recall, 0.95)
	assert.Greater(t, pts[1].Recall, pts[0].Recall)
	assert.Contains(t, res.out, "QPS at recall")
	// The ground truth was cached beside the data.
	cached, _ := filepath.Glob(filepath.Join(dir, "truth", "*.ivecs"))
	assert.Len(t, cached, 1)
}

func TestVectorRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "cut.fvecs")
	require.NoError(t, vecdata.WriteFvecs(bad, []float32{1, 2, 3, 4, 5, 6}, 3))
	b, _ := os.ReadFile(bad)
	require.NoError(t, os.WriteFile(bad, b[:len(b)-2], 0o644))
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"--data", bad}, "cut.fvecs: truncated at byte 30"},
		{[]string{"--metric", "HAMMING"}, `--metric "HAMMING": want L2, IP or COSINE`},
		{[]string{"--algorithm", "IVF"}, `--algorithm "IVF": want HNSW or FLAT`},
		{[]string{"--ef-search", "10,x"}, `--ef-search "10,x": want positive integers`},
		{[]string{"--ef-search", "2000"}, "Tair takes 1..1000"},
		{[]string{"--m", "0"}, "--m must be 1..100"},
		{[]string{"--engines", "milvus"}, `unknown engine "milvus"`},
		{[]string{"--engines", "elasticsearch"}, "--engines names elasticsearch: give --es URL"},
		{[]string{"--data", "random-s-100"}, "make it with python3 scripts/vector_data.py random-s-100"},
	}
	for _, tc := range cases {
		t.Run(tc.msg, func(t *testing.T) {
			args := append([]string{"vector", "--embedded", "--n", "50", "--nq", "5", "--dims", "4", "--centres", "2",
				"--data-dir", dir, "--truth-dir", "", "-d", "100ms"}, tc.args...)
			res := runCLI(context.Background(), args...)
			assert.NotEqual(t, 0, res.code)
			assert.Contains(t, res.err, tc.msg)
		})
	}
}

// TestVectorAgainstElasticsearch runs the same sweep on TairVector
// (embedded) and a real Elasticsearch 8.19 and prints both engines' QPS at
// recall in one table.
func TestVectorAgainstElasticsearch(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "both.json")
	res := runCLI(context.Background(), "vector", "--embedded", "--es", url, "--engines", "tairvector,elasticsearch",
		"--data", "clustered", "--n", "5000", "--nq", "100", "--dims", "16", "--centres", "50", "-d", "300ms",
		"--ef-search", "10,100", "--num-candidates", "10,100", "--index", "tb-vector-test", "--truth-dir", "", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	vb := readVector(t, js)
	require.Len(t, vb.Engines, 2)
	for _, e := range vb.Engines {
		require.Len(t, e.Points, 2, e.Engine)
		assert.GreaterOrEqual(t, e.Points[1].Recall, 0.95, e.Engine)
		assert.Greater(t, e.Points[1].QPS, 0.0, e.Engine)
		assert.Len(t, e.AtRecall, 3)
	}
	assert.Equal(t, "num_candidates", vb.Engines[1].Param)
	assert.Regexp(t, `^http://\S+ \(elasticsearch 8\.19\.\d+, build [0-9a-f]+\)$`, vb.Engines[1].Target, "GET / named the version")
	// Both engines' QPS at recall ≥ 0.90 and 0.95 in one table.
	assert.Regexp(t, `QPS at recall[^\n]*\ntairvector +\d+ +\d+[^\n]*\nelasticsearch +\d+ +\d+`, res.out)
	assert.Contains(t, res.out, "Compare QPS only at equal recall")
}

// TestVectorFilteredOnBothEngines: with a filter keeping 1 % of the
// vectors, FLAT is exact on TairVector (embedded) and on Elasticsearch 8.19
// (kNN's filter), and HNSW reaches recall 0.95 at some breadth on both.
func TestVectorFilteredOnBothEngines(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	dir := t.TempDir()
	args := []string{"vector", "--embedded", "--es", url, "--engines", "tairvector,elasticsearch",
		"--data", "clustered", "--n", "5000", "--nq", "100", "--dims", "16", "--centres", "50", "-d", "200ms", "--warmup", "0",
		"--filter-selectivity", "0.01", "--index", "tb-vector-filter-test", "--truth-dir", ""}
	for _, tc := range []struct {
		name string
		args []string
		min  float64
	}{
		{"FLAT", []string{"--algorithm", "FLAT"}, 1},
		{"HNSW", []string{"--ef-search", "10,160", "--num-candidates", "10,160"}, 0.95},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js := filepath.Join(dir, tc.name+".json")
			res := runCLI(context.Background(), append(append(args, tc.args...), "--json", js)...)
			require.Equal(t, 0, res.code, res.err)
			vb := readVector(t, js)
			require.Len(t, vb.Engines, 2)
			for _, e := range vb.Engines {
				require.Len(t, e.Filtered, 1, e.Engine)
				f := e.Filtered[0]
				assert.Equal(t, 50, f.Matching)
				best := 0.0
				for _, p := range f.Points {
					best = max(best, p.Recall)
				}
				assert.GreaterOrEqual(t, best, tc.min, "%s: %+v", e.Engine, f.Points)
			}
		})
	}
}

// TestVectorStream streams half of a small set into TairVector (embedded)
// and Elasticsearch 8.19 while searching: every window has its searches,
// scored against the vectors acknowledged when each was sent, every
// streamed vector was acknowledged, and the probe found the vectors it
// sought on both (Elasticsearch after its refresh).
func TestVectorStream(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	js := filepath.Join(t.TempDir(), "stream.json")
	res := runCLI(context.Background(), "vector", "--embedded", "--es", url, "--engines", "tairvector,elasticsearch",
		"--data", "clustered", "--n", "4000", "--nq", "50", "--dims", "16", "--centres", "20", "--ef-search", "80",
		"--num-candidates", "80", "--stream", "--stream-insert-rate", "1000", "--stream-search-rate", "100",
		"--index", "tb-vector-stream-test", "--truth-dir", "", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	vb := readVector(t, js)
	assert.True(t, vb.Config.Stream)
	require.Len(t, vb.Engines, 2)
	for _, e := range vb.Engines {
		s := e.Stream
		require.NotNil(t, s, e.Engine)
		assert.Empty(t, e.Points, "the stream runs in place of the sweep")
		assert.Equal(t, 2000, s.InitialVectors)
		assert.Equal(t, 2000, s.Inserted, e.Engine)
		assert.Equal(t, 80, s.Param)
		require.GreaterOrEqual(t, len(s.Windows), 3, "%s: the stream second by second", e.Engine)
		var searches int64
		for _, w := range s.Windows {
			searches += w.Searches
			if w.Scored > 0 {
				assert.InDelta(t, 0.5, w.Recall, 0.5, "a share")
			}
			if w.Searches > 0 {
				assert.Positive(t, w.P99US, "the run's own latency for that second")
			}
		}
		var ops int64
		for _, op := range s.Run.Series {
			for _, o := range op.Operations {
				if o.Name == "search" {
					ops += o.Ops
				}
			}
		}
		assert.Equal(t, ops, searches, "%s: the same searches as the run's series", e.Engine)
		assert.Positive(t, searches, e.Engine)
		assert.Equal(t, 4000, s.Windows[len(s.Windows)-1].IndexVectors, "%s: the last second searches the whole set", e.Engine)
		assert.Positive(t, s.Visible.Found, e.Engine)
		assert.Zero(t, s.Visible.NotFound, e.Engine)
		for _, op := range []string{"search", "insert", "probe"} {
			assert.True(t, slices.ContainsFunc(s.Run.Operations, func(o result.Operation) bool { return o.Name == op && o.Ops > 0 }),
				"%s: the run's %s operation", e.Engine, op)
		}
	}
	assert.Contains(t, res.out, "streaming: from 2000 vectors, inserting at 1000/s (10 a request) while searching at 100/s")
	assert.Contains(t, res.out, "elasticsearch: insert-to-searchable, from the insert's reply to the first search that found the vector")
}

// TestVectorWikiMiniLM sweeps the committed MiniLM embeddings of the
// Wikipedia sample (testdata/vector/wiki-minilm: abstracts, title queries).
func TestVectorWikiMiniLM(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "wiki.json")
	res := runCLI(context.Background(), "vector", "--embedded", "--data", "wiki-minilm", "--data-dir", "../../testdata/vector",
		"--truth-dir", dir, "--metric", "COSINE", "--nq", "0", "--ef-search", "1,10,100",
		"-d", "200ms", "--warmup", "0s", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	vb := readVector(t, js)
	assert.Equal(t, 384, vb.Config.Dims)
	assert.Equal(t, 368, vb.Config.Base)
	assert.Equal(t, "COSINE", vb.Config.Metric)
	pts := vb.Engines[0].Points
	require.Len(t, pts, 3)
	assert.Less(t, pts[0].Recall, pts[2].Recall)
	assert.GreaterOrEqual(t, pts[2].Recall, 0.95)
}

// TestVectorSuite: a present case runs (FLAT, exact) and says the
// whitepaper's figure is not available; an absent one is named with the
// command that provides it; an unknown case is refused.
func TestVectorSuite(t *testing.T) {
	dir := t.TempDir()
	set := vecdata.Clustered(2000, 50, 8, 20, 1)
	base := filepath.Join(dir, "random-s-100")
	require.NoError(t, os.MkdirAll(base, 0o755))
	for name, rows := range map[string][]float32{"train.npy": set.Train, "test.npy": set.Test} {
		f64 := make([]float64, len(rows))
		for i, v := range rows {
			f64[i] = float64(v)
		}
		f, err := os.Create(filepath.Join(base, name))
		require.NoError(t, err)
		require.NoError(t, npyio.Write(f, mat.NewDense(len(rows)/8, 8, f64)))
		require.NoError(t, f.Close())
	}
	out := filepath.Join(dir, "json")
	res := runCLI(context.Background(), "vector", "suite", "--embedded", "--data-dir", dir, "--truth-dir", "",
		"--cases", "random-s-100,sift-128-euclidean", "-d", "200ms", "--warmup", "0s", "--json-dir", out)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "whitepaper: published figure not available")
	assert.Contains(t, res.out, "absent: dataset not prepared: sift-128-euclidean is not in "+dir)
	assert.Contains(t, res.out, "python3 scripts/vector_data.py hdf5 sift-128-euclidean.hdf5")
	assert.Contains(t, res.out, "tairbench's embedded server, not Tair")
	vb := readVector(t, filepath.Join(out, "random-s-100.json"))
	assert.Equal(t, "FLAT", vb.Config.Algorithm)
	assert.Equal(t, 1.0, vb.Engines[0].Points[0].Recall)

	res = runCLI(context.Background(), "vector", "suite", "--embedded", "--cases", "sift-1m")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.err, `--cases: unknown case "sift-1m"`)
}

// TestVectorNamesANetworkedEmbeddedServer: 'tairbench serve' reached as a
// plain host:port is named "tairbench's embedded server, not Tair" in the
// table and the stored engine, as under --embedded.
func TestVectorNamesANetworkedEmbeddedServer(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	js := filepath.Join(dir, "v.json")
	_, p, _ := net.SplitHostPort(srv.Addr())
	res := runCLI(context.Background(), "vector", "--port", p, "--data", "clustered", "--n", "2000", "--nq", "20",
		"--dims", "8", "--centres", "10", "-d", "200ms", "--algorithm", "FLAT", "--truth-dir", filepath.Join(dir, "truth"), "--json", js)
	require.Equal(t, 0, res.code, res.err)
	want := srv.Addr() + " (tairbench's embedded server, not Tair)"
	assert.Contains(t, res.out, want)
	assert.Equal(t, want, readVector(t, js).Engines[0].Target)
	assert.Contains(t, res.out, "tairvector's figures come from tairbench's embedded server (Go, reached over the network), not Tair.")
	assert.NotContains(t, res.out, "in this process")
}
