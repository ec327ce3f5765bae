package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func readTrack(t *testing.T, path string) *result.TrackRun {
	t.Helper()
	doc, err := result.ReadFile(path)
	require.NoError(t, err)
	tr, ok := doc.(*result.TrackRun)
	require.True(t, ok, "a %T", doc)
	return tr
}

// TestTrackChineseOnBothEngines runs the built-in Chinese e-commerce track
// on the embedded server and on Elasticsearch 8.19 with the Chinese
// analysis plugin: every task runs on both, each query template has its
// parity row, and each template's latency is in the JSON. The query tasks
// run by count, so that every template is timed however slow the machine.
func TestTrackChineseOnBothEngines(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	js := filepath.Join(t.TempDir(), "track.json")
	res := runCLI(context.Background(), "search", "run", "ecommerce-zh", "--embedded", "--es", url, "--docs", "2000",
		"--iterations", "300", "--quiet", "--seed", "1", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	tr := readTrack(t, js)
	assert.Equal(t, "ecommerce-zh", tr.Track)
	assert.Equal(t, "embedded server, not Tair", tr.Engines["tairsearch"])
	assert.Regexp(t, `^http://\S+ \(elasticsearch 8\.19\.\d+, build [0-9a-f]+\)$`, tr.Engines["elasticsearch"], "GET / named the version")
	require.Len(t, tr.Tasks, 3)
	for _, task := range tr.Tasks {
		require.Len(t, task.Engines, 2, task.Name)
		for _, e := range task.Engines {
			assert.Zero(t, e.Run.Totals.Errors, "%s on %s", task.Name, e.Engine)
		}
		if task.Kind == "ingest" {
			for _, e := range task.Engines {
				assert.Equal(t, int64(1600), e.Docs, "the ingest task writes its 80 %% share, searchable on %s", e.Engine)
			}
			continue
		}
		require.NotEmpty(t, task.Parity, task.Name)
		for _, e := range task.Engines {
			require.Len(t, e.Templates, len(task.Parity), "%s on %s", task.Name, e.Engine)
			var queries int64
			for _, ts := range e.Templates {
				queries += ts.Requests
			}
			assert.Equal(t, int64(300), queries, "%s on %s: --iterations counts the queries after the warm-up, not the writes", task.Name, e.Engine)
			for i, ts := range e.Templates {
				assert.Equal(t, task.Parity[i].Template, ts.Name)
				assert.Positive(t, ts.Requests, "%s %s on %s", task.Name, ts.Name, e.Engine)
				require.NotNil(t, ts.Latency)
				assert.Positive(t, ts.Latency.P50)
				assert.NotEmpty(t, e.Run.Operations[i].Histogram, "the template's own histogram")
			}
		}
		for _, p := range task.Parity {
			assert.Equal(t, 5, p.Samples)
			if p.Divergence > 0 {
				assert.NotEmpty(t, p.Cause, "%s: a difference is explained", p.Template)
				require.NotEmpty(t, p.Causes, p.Template)
				for _, c := range p.Causes {
					assert.Positive(t, c.Score, "%s: %s explains some samples", p.Template, c.Kind)
				}
			}
		}
	}
	// jieba is jieba on both engines: the run names the pair and measures
	// how alike they cut the corpus.
	assert.Contains(t, res.out, "analyzer title: jieba → tair_jieba (jieba search mode with the same stop words on both engines")
	assert.Contains(t, res.out, "scoring: TairSearch TF-IDF (classic), Elasticsearch BM25")
	require.Len(t, tr.TokenAgreement, 2)
	for _, ta := range tr.TokenAgreement {
		assert.Equal(t, "jieba on jieba-analysis 1.0.2", ta.Implementation, ta.Field)
		assert.Equal(t, 200, ta.Samples, ta.Field)
		assert.GreaterOrEqual(t, ta.Agreement(), 0.95, "%s: the two jieba cut the generated products alike: %+v", ta.Field, ta)
	}
	assert.Regexp(t, `title +jieba / tair_jieba \(jieba on jieba-analysis 1\.0\.2\) +\d+/200 \(\d+ %\)`, res.out)
	// The price range finds the same documents on both; only ties in the
	// sort may be ordered differently, and then the run says so.
	assert.Regexp(t, `price-range-sort +5/5 +(1\.00 +agree|0\.\d\d +sort ties \d\.\d\d)`, res.out)

	// --max-divergence stops before timing.
	res = runCLI(context.Background(), "search", "run", "ecommerce-zh", "--embedded", "--es", url, "--docs", "500",
		"--duration", "200ms", "--quiet", "--seed", "1", "--max-divergence", "0")
	assert.Equal(t, 3, res.code, res.err)
	assert.Contains(t, res.err, "task queries: the engines diverge more than --max-divergence")
}

// Every bad input is refused in one line naming it.
func TestTrackRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	track := func(corpus, param string) string {
		return `{"name":"t","corpus":{"file":"` + corpus + `"},"index":{"name":"p","tairsearch":{"mappings":{"properties":` +
			`{"title":{"type":"text","analyzer":"jieba"},"price":{"type":"double"}}}}},"params":{"w":{"kind":"terms","field":"title","band":"head"}},` +
			`"tasks":[{"name":"w","ingest":{"bulk":1}},{"name":"q","iterations":20,"queries":[{"name":"m","body":{"query":{"match":{"title":"{{` + param + `}}"}}}}]}]}`
	}
	write("good.jsonl", "{\"_id\":\"1\",\"title\":\"数据库\",\"price\":3.5}\n{\"_id\":\"2\",\"title\":\"缓存\",\"price\":\"abc\"}\n{\"_id\":\"3\",\"title\":\"队列\",\"price\":7}\n")
	write("bad.jsonl", "{\"title\":\"x\"}\n{\"title\":\n{\"title\":\"y\"}\nnope\n")
	for _, c := range []struct {
		name, track string
		code        int
		want        string
	}{
		{"rejected document", write("rej.json", track("good.jsonl", "w")), 3,
			"task w on tairsearch: 1 of 3 documents were rejected or lost (first: ERR failed to parse field [price] of type [double])"},
		{"bad corpus line", write("bad.json", track("bad.jsonl", "w")), 1,
			"bad.jsonl line 2: not a JSON object: unexpected end of JSON input (2 of 4 lines are not JSON objects; nothing was written)"},
		{"unknown parameter", write("unk.json", track("good.jsonl", "nope")), 1,
			"task q, template m: unknown parameter {{nope}} (the track defines w)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runCLI(context.Background(), "search", "run", c.track, "--embedded", "--quiet")
			assert.Equal(t, c.code, res.code, res.err)
			assert.Contains(t, res.err, c.want)
			assert.Equal(t, 1, strings.Count(res.err, "tairbench: "), "one line: %s", res.err)
		})
	}
	// 'search' itself: a JSON-lines file, and -q given twice, are refused;
	// -q @FILE reads the query.
	jl := write("products.jsonl", "{\"_id\":\"1\",\"title\":\"x\"}\n")
	res := runCLI(context.Background(), "search", "-t", "write", "-f", jl, "--embedded", "--quiet")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "products.jsonl is not a Wikipedia abstract dump (it starts with JSON): your own documents run in a track")
	res = runCLI(context.Background(), "search", "-t", "search", "-q", "{}", "-q", "{}", "--embedded")
	assert.Contains(t, res.err, "--query was given more than once")
	res = runCLI(context.Background(), "search", "-t", "search", "-q", "@"+write("q.txt", "not json"), "--embedded")
	assert.Contains(t, res.err, "q.txt: the file is not one JSON query")

	res = runCLI(context.Background(), "search", "run", "ecommerce-zh", "--engines", "elasticsearch")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "--engines names elasticsearch: give --es URL")
	res = runCLI(context.Background(), "search", "run", "ecommerce-zh", "--embedded", "--duration", "1s", "--iterations", "10")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "give --duration or --iterations, not both")
	res = runCLI(context.Background(), "search", "run", "ecommerce-zh", "--embedded", "--es-chinese", "ik")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.err, `--es-chinese: unknown Chinese analyzer "ik" for Elasticsearch (choose jieba or smartcn)`)
}

// TestTrackTokenAgreementNamesTheDifferingTokens: where the two jieba cut a
// text differently (jieba-analysis's dictionary lacks 吉林; it folds
// full-width letters and digits, PyPI jieba's cut keeps them one by one),
// the token agreement row counts the texts and names the tokens; with
// --es-chinese smartcn the pair is Lucene's smartcn.
func TestTrackTokenAgreementNamesTheDifferingTokens(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	dir := t.TempDir()
	corpus := filepath.Join(dir, "zh.jsonl")
	require.NoError(t, os.WriteFile(corpus, []byte(`{"_id":"1","title":"我来到吉林省长春市"}
{"_id":"2","title":"吉林大学在长春"}
{"_id":"3","title":"ＡＢＣ全角字母"}
{"_id":"4","title":"高性能的数据库和缓存"}
`), 0o644))
	trackFile := filepath.Join(dir, "zh.json")
	require.NoError(t, os.WriteFile(trackFile, []byte(`{"name":"zh","corpus":{"file":"zh.jsonl"},`+
		`"index":{"name":"tokens-zh","tairsearch":{"mappings":{"properties":{"title":{"type":"text","analyzer":"jieba"}}}}},`+
		`"tasks":[{"name":"w","ingest":{"bulk":4}}]}`), 0o644))
	js := filepath.Join(dir, "out.json")
	res := runCLI(context.Background(), "search", "run", trackFile, "--embedded", "--es", url, "--quiet", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	tr := readTrack(t, js)
	require.Len(t, tr.TokenAgreement, 1)
	ta := tr.TokenAgreement[0]
	assert.Equal(t, 4, ta.Samples)
	assert.Equal(t, 1, ta.Equal)
	assert.Equal(t, []result.TokenCount{{Token: "吉林", Count: 2}, {Token: "ａ", Count: 1}, {Token: "ｂ", Count: 1}, {Token: "ｃ", Count: 1}}, ta.OnlyTairSearch)
	assert.Equal(t, []result.TokenCount{{Token: "abc", Count: 1}}, ta.OnlyElasticsearch)
	assert.Contains(t, ta.Example, "我来到吉林省长春市")
	assert.Regexp(t, `title +jieba / tair_jieba \(jieba on jieba-analysis 1\.0\.2\) +1/4 \(25 %\) +吉林 ×2, ａ ×1, ｂ ×1, ｃ ×1 +abc ×1`, res.out)

	res = runCLI(context.Background(), "search", "run", trackFile, "--embedded", "--es", url, "--quiet", "--es-chinese", "smartcn", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	tr = readTrack(t, js)
	require.Len(t, tr.TokenAgreement, 1)
	assert.Equal(t, "Lucene smartcn", tr.TokenAgreement[0].Implementation)
	assert.Equal(t, "tair_smartcn", tr.TokenAgreement[0].Elasticsearch)
	assert.Less(t, tr.TokenAgreement[0].Equal, 4, "smartcn cuts no sub-words")
}

// A template the run never timed is named in a warning, not shown blank.
func TestTrackUntimedTemplateWarned(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "rare.json")
	require.NoError(t, os.WriteFile(tf, []byte(`{"name":"rare","corpus":{"generator":"products-zh","docs":100},`+
		`"index":{"name":"p","tairsearch":{"mappings":{"properties":{"category":{"type":"keyword"}}}}},`+
		`"params":{"c":{"kind":"values","field":"category"}},`+
		`"tasks":[{"name":"w","ingest":{"bulk":50}},{"name":"q","clients":2,"iterations":20,"queries":[`+
		`{"name":"common","weight":100000,"body":{"query":{"term":{"category":"{{c}}"}}}},{"name":"rare","body":{"query":{"term":{"category":"{{c}}"}}}}]}]}`), 0o644))
	res := runCLI(context.Background(), "search", "run", tf, "--embedded", "--quiet", "--seed", "1")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out+res.err, "task q on tairsearch: template rare got no measured request, so it has no latency")
}

// The built-in English track runs on the embedded server alone.
func TestTrackWikiEmbedded(t *testing.T) {
	js := filepath.Join(t.TempDir(), "wiki.json")
	res := runCLI(context.Background(), "search", "run", "wiki-en", "--embedded", "--docs", "1000", "--duration", "300ms",
		"--quiet", "--seed", "2", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	tr := readTrack(t, js)
	require.Len(t, tr.Tasks, 2)
	assert.Equal(t, int64(1000), tr.Tasks[0].Engines[0].Docs)
	byName := map[string]result.TemplateStats{}
	for _, ts := range tr.Tasks[1].Engines[0].Templates {
		byName[ts.Name] = ts
	}
	assert.Zero(t, byName["by-id"].ZeroHitShare, "ids of written documents are found")
	assert.Greater(t, byName["term-head"].MeanHits, byName["term-tail"].MeanHits, "head terms match more documents than tail terms")

	// compare reads track results: two of them task by task, or one run of
	// one as FILE#TASK/ENGINE; a whole track result is not one run.
	res = runCLI(context.Background(), "compare", js, js)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "task queries on tairsearch")
	assert.Contains(t, res.out, "task bulk-ingest on tairsearch")
	res = runCLI(context.Background(), "compare", js+"#queries/tairsearch", js+"#bulk-ingest/tairsearch")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "QPS (commands/s)")
	res = runCLI(context.Background(), "merge", js, js, "-o", filepath.Join(t.TempDir(), "m.json"))
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.err, "a track result holds 2 runs: name one as "+js+"#TASK/ENGINE (bulk-ingest/tairsearch, queries/tairsearch)")
	res = runCLI(context.Background(), "compare", js+"#queries/tairsearch", js+"#nope/x")
	assert.Contains(t, res.err, `no run "nope/x" in this track result`)
}

// A task with a target rate runs open loop: each template's latency from
// the intended start is in the JSON beside its service time.
func TestTrackRateTask(t *testing.T) {
	dir := t.TempDir()
	tf := filepath.Join(dir, "rate.json")
	require.NoError(t, os.WriteFile(tf, []byte(`{"name":"rate","corpus":{"generator":"products-zh","docs":300},`+
		`"index":{"name":"p","tairsearch":{"mappings":{"properties":{"title":{"type":"text","analyzer":"jieba"},"category":{"type":"keyword"}}}}},`+
		`"params":{"w":{"kind":"terms","field":"title","band":"torso"},"c":{"kind":"values","field":"category"}},`+
		`"tasks":[{"name":"w","ingest":{"bulk":50}},{"name":"q","clients":2,"rate":200,"duration":"1s","queries":[`+
		`{"name":"m","weight":3,"body":{"query":{"match":{"title":"{{w}}"}}}},{"name":"t","body":{"query":{"term":{"category":"{{c}}"}}}}]}]}`), 0o644))
	js := filepath.Join(dir, "out.json")
	res := runCLI(context.Background(), "search", "run", tf, "--embedded", "--quiet", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	tr := readTrack(t, js)
	q := tr.Tasks[1]
	assert.Equal(t, 200.0, q.Rate)
	for _, ts := range q.Engines[0].Templates {
		require.NotNil(t, ts.CorrectedLatency, ts.Name)
		assert.Positive(t, ts.CorrectedLatency.P99, ts.Name)
		assert.Positive(t, ts.Requests, ts.Name)
	}
	assert.Contains(t, res.out, "p99 ms, latency from the intended start")
}

// TestTrackNamesANetworkedEmbeddedServer: 'tairbench serve' reached as a
// plain host:port is named "embedded server, not Tair" in the printed
// set-up, the track's engines and every task's stored target.
func TestTrackNamesANetworkedEmbeddedServer(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	dir := t.TempDir()
	tf := filepath.Join(dir, "t.json")
	require.NoError(t, os.WriteFile(tf, []byte(`{"name":"n","corpus":{"generator":"products-zh","docs":100},`+
		`"index":{"name":"p","tairsearch":{"mappings":{"properties":{"title":{"type":"text","analyzer":"jieba"}}}}},`+
		`"params":{"w":{"kind":"terms","field":"title","band":"head"}},`+
		`"tasks":[{"name":"w","ingest":{"bulk":50}},{"name":"q","iterations":20,"queries":[{"name":"m","body":{"query":{"match":{"title":"{{w}}"}}}}]}]}`), 0o644))
	js := filepath.Join(dir, "out.json")
	res := runCLI(context.Background(), "search", "run", tf, "--tair", srv.Addr(), "--json", js)
	require.Equal(t, 0, res.code, res.err)
	tr := readTrack(t, js)
	assert.Equal(t, srv.Addr()+" (embedded server, not Tair)", tr.Engines["tairsearch"])
	assert.Contains(t, res.out, srv.Addr()+" (embedded server, not Tair)")
	for _, task := range tr.Tasks {
		tg := task.Engines[0].Run.Config.Target
		require.NotNil(t, tg, task.Name)
		assert.True(t, tg.NotTair(), "task %s: the stored target is named as ours", task.Name)
	}
}

// TestZeroHitTemplateIsNoEvidence: a template whose every parity sample
// finds nothing on both engines is "no evidence", not agreement; the track
// warns that its timing measures empty queries, on both engines.
func TestZeroHitTemplateIsNoEvidence(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	dir := t.TempDir()
	tf := filepath.Join(dir, "t.json")
	require.NoError(t, os.WriteFile(tf, []byte(`{"name":"zero","corpus":{"generator":"products-zh","docs":200},`+
		`"index":{"name":"zerohits","tairsearch":{"mappings":{"properties":{"title":{"type":"keyword"}}}}},`+
		`"tasks":[{"name":"w","ingest":{"bulk":100}},{"name":"q","iterations":50,"queries":[`+
		`{"name":"none","body":{"query":{"term":{"title":"no-such-title"}}}}]}]}`), 0o644))
	js := filepath.Join(dir, "out.json")
	res := runCLI(context.Background(), "search", "run", tf, "--embedded", "--es", url, "--quiet", "--json", js)
	require.Equal(t, 0, res.code, res.err)
	tr := readTrack(t, js)
	var q *result.TrackTask
	for i := range tr.Tasks {
		if tr.Tasks[i].Name == "q" {
			q = &tr.Tasks[i]
		}
	}
	require.NotNil(t, q)
	require.Len(t, q.Parity, 1)
	p := q.Parity[0]
	assert.True(t, p.NoEvidence)
	assert.Equal(t, "no evidence: all 5 samples found nothing on both engines", p.Cause)
	assert.Contains(t, res.out, "no evidence: all 5 samples found nothing on both engines", "not 'agree'")
	warned := strings.Join(tr.Warnings, "\n")
	assert.Contains(t, warned, "task q: template none: every parity sample found nothing on both engines")
	for _, e := range []string{"tairsearch", "elasticsearch"} {
		assert.Contains(t, warned, "task q on "+e+": template none: every measured query found nothing")
	}
}
