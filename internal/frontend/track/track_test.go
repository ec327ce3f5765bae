package track

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/testenv"
	tk "github.com/tairbench/tairbench/internal/track"
	"github.com/tairbench/tairbench/pkg/result"
)

// embedded is TairSearch's target as --embedded gives it.
var embedded = target.Options{Host: "127.0.0.1", Port: 6379, Protocol: 2, Timeout: 10 * time.Second, Embedded: true}

// own are tairbench's own options with --embedded.
func own() common.Options {
	o := common.Defaults()
	o.Embedded = true
	return o
}

// quiet is an IO that keeps what the command prints.
func quiet() (harness.IO, *bytes.Buffer, *bytes.Buffer) {
	var out, errs bytes.Buffer
	return harness.IO{Out: &out, Err: &errs, In: bytes.NewReader(nil), Version: "test"}, &out, &errs
}

// TestMainRefuses: words that cannot run are refused, each with its
// reason, before any server starts (the embedded one included).
func TestMainRefuses(t *testing.T) {
	ok := Words{Options: own(), Run: Options{Track: "whitepaper", Samples: 1}, Server: embedded}
	tests := []struct {
		name    string
		edit    func(w *Words)
		wantErr string
	}{
		{"a divergence above one", func(w *Words) { w.Run.MaxDivergence = 1.5 }, "--max-divergence is a share"},
		{"negative docs", func(w *Words) { w.Run.Docs = -1 }, "must not be negative"},
		{"negative duration", func(w *Words) { w.Run.Duration = -time.Second }, "must not be negative"},
		{"duration and iterations", func(w *Words) { w.Run.Duration, w.Run.Iterations = time.Second, 10 }, "not both"},
		{"an unknown engine", func(w *Words) { w.Engines = "solr" }, "--engines"},
		{"an engine by URL without one", func(w *Words) { w.Engines = "elasticsearch" }, "give --es URL"},
		{"no TairSearch address", func(w *Words) { w.Embedded = false }, "--tair ADDR"},
		{"an unknown track", func(w *Words) { w.Run.Track = "no-such-track" }, "no-such-track"},
		{"a threshold on a track without relevance", func(w *Words) { w.Run.Thresholds = []string{"ndcg@10>0.5"} },
			`threshold "ndcg@10>0.5": track whitepaper has no relevance section to judge`},
		{"a threshold the track does not measure", func(w *Words) {
			w.Run.Track, w.Run.Thresholds = "testdata/wiki-known-items.json", []string{"recall@5>0.5"}
		}, `threshold "recall@5>0.5": the run measures recall@10`},
		{"a bad threshold", func(w *Words) { w.Run.Thresholds = []string{"p99<2ms"} }, "want [ENGINE:]METRIC@K>VALUE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := ok
			tc.edit(&w)
			io, _, errs := quiet()
			err := Main(context.Background(), w, io)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
			assert.NotContains(t, errs.String(), "listening", "no server was started")
		})
	}
}

// TestList names every built-in track with its description.
func TestList(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, List(&b))
	for _, name := range Builtin() {
		tr, err := tk.Load(name)
		require.NoError(t, err)
		assert.Contains(t, b.String(), name)
		assert.Contains(t, b.String(), tr.Description)
	}
	assert.Len(t, strings.Split(strings.TrimSpace(b.String()), "\n"), len(Builtin()))
}

// TestRunOnTheEmbeddedServer runs the whitepaper track on TairSearch in
// the embedded server: every task ran without an error, the result file
// holds what Run returned, and the summary names the target as not Tair.
func TestRunOnTheEmbeddedServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "track.json")
	io, out, errs := quiet()
	w := Words{Options: own(), Run: Options{Track: "whitepaper", Docs: 300, Iterations: 20, MaxDivergence: -1, Samples: 2, Quiet: true},
		Server: embedded}
	w.Seed, w.JSON = 1, path
	require.NoError(t, Main(context.Background(), w, io), errs.String())
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	run, ok := doc.(*result.TrackRun)
	require.True(t, ok, "a %T", doc)
	assert.Equal(t, "whitepaper", run.Track)
	assert.Equal(t, []string{"tairsearch"}, sortedKeys(run.Engines))
	assert.Contains(t, run.Engines["tairsearch"], "not Tair")
	require.NotEmpty(t, run.Tasks)
	for _, task := range run.Tasks {
		require.Len(t, task.Engines, 1, task.Name)
		r := task.Engines[0].Run
		require.NotNil(t, r, task.Name)
		assert.Positive(t, r.Totals.Ops, task.Name)
		assert.Zero(t, r.Totals.Errors, "%s: %s", task.Name, firstError(r))
		assert.NotNil(t, r.Server, "%s: the engine's own statistics are sampled unless --no-server-stats", task.Name)
	}
	assert.Empty(t, failures(run))
	assert.Contains(t, out.String(), "track whitepaper")
	assert.Contains(t, out.String(), "not Tair")
}

// TestRender holds the summary of a saved track run to its golden file.
func TestRender(t *testing.T) {
	doc, err := result.ReadFile(filepath.Join("testdata", "track.json"))
	require.NoError(t, err)
	var b bytes.Buffer
	Render(&b, doc.(*result.TrackRun))
	testenv.Golden(t, "render.golden", b.Bytes())
}

// TestFailures names the first task whose engine had errors, by kind.
func TestFailures(t *testing.T) {
	failed := &result.Run{Totals: result.Totals{Ops: 90, LostOps: 10, Errors: 4},
		Errors: []result.ErrorCount{{Example: "ERR index not found"}}}
	clean := &result.Run{Totals: result.Totals{Ops: 100}}
	tests := []struct {
		name  string
		tasks []result.TrackTask
		want  string
	}{
		{"none", []result.TrackTask{{Name: "q", Engines: []result.TrackEngine{{Engine: "tairsearch", Run: clean}}}}, ""},
		{"a query task", []result.TrackTask{{Name: "q", Kind: "search", Engines: []result.TrackEngine{{Engine: "tairsearch", Run: failed}}}},
			"task q on tairsearch: 4 of 100 requests failed (first: ERR index not found)"},
		{"an ingest task", []result.TrackTask{{Name: "load", Kind: "ingest", Engines: []result.TrackEngine{{Engine: "elasticsearch", Run: failed}}}},
			"task load on elasticsearch: 4 of 100 documents were rejected or lost (first: ERR index not found)"},
		{"the first of two", []result.TrackTask{
			{Name: "a", Engines: []result.TrackEngine{{Engine: "tairsearch", Run: clean}, {Engine: "elasticsearch"}}},
			{Name: "b", Engines: []result.TrackEngine{{Engine: "tairsearch", Run: failed}}}},
			"task b on tairsearch: 4 of 100 requests failed (first: ERR index not found)"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, failures(&result.TrackRun{Tasks: tc.tasks}), tc.name)
	}
	assert.Equal(t, "no message", firstError(&result.Run{}))
}

func TestMaxDivergence(t *testing.T) {
	assert.Zero(t, maxDivergence(nil))
	assert.Equal(t, 0.4, maxDivergence([]result.TemplateParity{{Divergence: 0.1}, {Divergence: 0.4}, {Divergence: 0.2}}))
}

// TestFeedAllowsEachTaskItsShare: the feed hands a task the documents it
// may take, then the next task the rest, and says when the corpus ends.
func TestFeedAllowsEachTaskItsShare(t *testing.T) {
	tr, err := tk.Load("whitepaper")
	require.NoError(t, err)
	f, err := newFeed(tr)
	require.NoError(t, err)
	defer f.close()
	f.allow(5)
	got := f.TakeEncoded(make([]fts.Encoded, 0, 100))
	assert.Len(t, got, 5, "the first task's share")
	assert.Empty(t, f.TakeEncoded(make([]fts.Encoded, 0, 100)), "no more until the next task")
	f.allow(0)
	total := 5
	for {
		got := f.TakeEncoded(make([]fts.Encoded, 0, 100))
		if len(got) == 0 {
			break
		}
		total += len(got)
	}
	assert.Greater(t, total, 5, "the rest of the corpus")
	require.NoError(t, f.err())
}

// TestDryRun: --dry-run prints every task on every engine, where it would
// run and how long, and starts no server.
func TestDryRun(t *testing.T) {
	io, out, errs := quiet()
	w := Words{Options: own(), Run: Options{Track: "whitepaper", Samples: 1, Duration: 2 * time.Second, ES: "http://127.0.0.1:9"},
		Server: embedded, Engines: "tairsearch,elasticsearch"}
	w.DryRun = true
	require.NoError(t, Main(context.Background(), w, io))
	assert.NotContains(t, errs.String(), "listening", "no server was started")
	tr, err := load(w.Run)
	require.NoError(t, err)
	text := out.String()
	assert.Contains(t, text, "dry run of tairbench search run whitepaper: nothing is sent")
	for _, task := range tr.Tasks {
		assert.Contains(t, text, "tairsearch "+task.Name)
		assert.Contains(t, text, "elasticsearch "+task.Name)
	}
	assert.Contains(t, text, "→ http://127.0.0.1:9")
	assert.Contains(t, text, "not Tair")
	assert.Contains(t, text, "for 3s (1s of warm-up)", "--duration 2s after the track's warm-up")
}

// TestUnreachableEngineFirst: every engine is reached before the corpus
// is read or any index is made, so an unreachable Elasticsearch stops the
// run before TairSearch's index is touched.
func TestUnreachableEngineFirst(t *testing.T) {
	io, _, errs := quiet()
	w := Words{Options: own(), Run: Options{Track: "whitepaper", Docs: 100, Iterations: 5, MaxDivergence: -1, Samples: 1,
		ES: "http://127.0.0.1:1"}, Server: embedded, Engines: "tairsearch,elasticsearch"}
	err := Main(context.Background(), w, io)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "elasticsearch at http://127.0.0.1:1 cannot be used")
	assert.NotContains(t, errs.String(), "reading the corpus")
}

// judged runs a track with relevance on the embedded server, its result to
// path, and returns the words it ran with, the relevance and the output.
func judged(t *testing.T, track, path string) (Words, *result.TrackRelevance, *bytes.Buffer) {
	t.Helper()
	io, out, errs := quiet()
	w := Words{Options: own(), Run: Options{Track: track, MaxDivergence: -1, Samples: 1, Quiet: true}, Server: embedded}
	w.Seed, w.JSON = 1, path
	require.NoError(t, Main(context.Background(), w, io), errs.String())
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	rel := doc.(*result.TrackRun).Relevance
	require.NotNil(t, rel)
	return w, rel, out
}

// TestKnownItemMRRByHand: five known items of the committed Wikipedia
// sample (the documents at lines 1, 74, 147, 220 and 293), each title
// searched in the abstracts on the embedded server. Found by hand with
// TFT.SEARCH through redis-cli against 'tairbench serve':
//
//	Anarchism                rank 1
//	Aruba                    rank 1
//	American Film Institute  not in the top 10 (its abstract is an infobox line, "| location = Los Angeles…")
//	Allen Ginsberg           no hit at all (abstract "| birth_place = Newark…")
//	Athena                   not in the top 10 (abstract "}}"; the first hit is "Athene (disambiguation)")
//
// so MRR@10 = (1 + 1 + 0 + 0 + 0) / 5 = 0.4, and recall@10 and NDCG@10
// (one relevant document each, found first or not at all) are 0.4 too; on
// the embedded server, then on both it and the real Elasticsearch.
func TestKnownItemMRRByHand(t *testing.T) {
	path := filepath.Join(t.TempDir(), "track.json")
	w, rel, out := judged(t, "testdata/wiki-known-items.json", path)
	assert.Equal(t, "known items: 5 documents, each found by its title (the document is the one relevant answer)", rel.Labels)
	require.Len(t, rel.Engines, 1)
	e := rel.Engines[0]
	assert.Equal(t, 5, e.Judged)
	assert.InDelta(t, 0.4, e.MRR, 1e-12)
	assert.InDelta(t, 0.4, e.Recall, 1e-12)
	assert.InDelta(t, 0.4, e.NDCG, 1e-12)
	assert.Contains(t, out.String(), "relevance: known items: 5 documents")
	assert.Regexp(t, `query\s+tairsearch\s+5\s+0\.400\s+0\.400\s+0\.400\s+0`, out.String())

	// A missed relevance threshold exits 99, after the result is written.
	w.Run.Thresholds = []string{"ndcg@10>0.5", "tairsearch:mrr@10>=0.4"}
	io, out, errs := quiet()
	err := Main(context.Background(), w, io)
	var ee *harness.ExitError
	require.ErrorAs(t, err, &ee, errs.String())
	assert.Equal(t, harness.ExitThreshold, ee.Code)
	assert.Contains(t, out.String(), "threshold ndcg@10>0.5            FAIL: observed 0.400 (query on tairsearch, 5 judged queries)")
	assert.Contains(t, out.String(), "threshold tairsearch:mrr@10>=0.4 PASS: observed 0.400")
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	assert.Len(t, doc.(*result.TrackRun).Thresholds, 2)

	// The real Elasticsearch ranks the same five alike (checked by hand
	// with _search): Anarchism and Aruba first, the other three not in
	// its top 10.
	w.Run.Thresholds, w.Engines, w.Run.ES = nil, "tairsearch,elasticsearch", testenv.ElasticsearchURL(t)
	io, _, errs = quiet()
	require.NoError(t, Main(context.Background(), w, io), errs.String())
	doc, err = result.ReadFile(path)
	require.NoError(t, err)
	rel = doc.(*result.TrackRun).Relevance
	require.Len(t, rel.Engines, 2)
	assert.Equal(t, "elasticsearch", rel.Engines[1].Engine)
	assert.InDelta(t, 0.4, rel.Engines[1].MRR, 1e-12)
}

// TestInlineLabelsJudged: queries judged in the track itself (a
// "relevant" field) are scored as qrels are: on the committed Wikipedia
// sample, "Anarchism" finds document 1 first (graded 2) and "Aruba"
// finds document 74 first; a query judged with nothing relevant is left
// out of the means, and counted.
func TestInlineLabelsJudged(t *testing.T) {
	dir := t.TempDir()
	sample := testenv.RepoPath(t, filepath.Join("testdata", "wiki", "enwiki-abstract-sample-2019.xml"))
	tf := filepath.Join(dir, "labels.json")
	require.NoError(t, os.WriteFile(tf, []byte(`{"name":"labels","corpus":{"wiki_file":"`+sample+`"},`+
		`"index":{"name":"wiki","tairsearch":{"mappings":{"properties":{"title":{"type":"text"},"abstract":{"type":"text"}}}}},`+
		`"tasks":[{"name":"w","clients":2,"ingest":{"bulk":100}}],`+
		`"relevance":{"template":{"query":{"match":{"abstract":"{{query}}"}},"size":10},"labels":[`+
		`{"query":"Anarchism","relevant":{"1":2}},{"query":"Aruba","relevant":["74"]},{"query":"nothing","relevant":[]}]}}`), 0o644))
	_, rel, _ := judged(t, tf, filepath.Join(dir, "out.json"))
	assert.Equal(t, "the track's labels: 3 queries judged in the track", rel.Labels)
	require.Len(t, rel.Engines, 1)
	assert.Equal(t, 2, rel.Engines[0].Judged)
	assert.Equal(t, 1, rel.Engines[0].Unjudged)
	assert.InDelta(t, 1.0, rel.Engines[0].MRR, 1e-12)
}
