package track

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// twoEngines is a track run on both engines that exercises every part
// of the summary a single-engine run leaves out: analyzers translated
// and not, set-up differences, parity with a cause, an open-loop task,
// an ingest's per-template rows and errors.
func twoEngines() *result.TrackRun {
	lat := func(p50, p99 float64) *result.Latency { return &result.Latency{P50: p50, P99: p99} }
	run := func(qps float64, errs int64, ops ...result.Operation) *result.Run {
		r := &result.Run{Totals: result.Totals{OpsPerSec: qps, Errors: errs, Latency: *lat(400, 2100)}, Operations: ops}
		if errs > 0 {
			r.Errors = []result.ErrorCount{{Kind: "reply", Count: errs, Example: "ERR bad\nquery"}}
		}
		return r
	}
	open := run(900, 0, result.Operation{Name: "term", OpsPerSec: 900, Latency: *lat(300, 900)})
	open.Totals.CorrectedLatency = lat(500, 5000)
	return &result.TrackRun{Track: "ecommerce-zh", Description: "Chinese product search", Corpus: "built-in, 1000 documents", Docs: 1000,
		Engines: map[string]string{"tairsearch": "127.0.0.1:6379", "elasticsearch": "http://127.0.0.1:9200"},
		Analyzers: []result.AnalyzerTranslation{
			{Field: "title", TairSearch: "jieba", Elasticsearch: "smartcn", Why: "different dictionaries"},
			{Field: "brand", TairSearch: "standard", Elasticsearch: "standard", Exact: true}},
		Differences: []string{"Elasticsearch refreshes every second"},
		Tasks: []result.TrackTask{
			{Name: "load", Kind: "ingest", Clients: 4, Engines: []result.TrackEngine{
				{Engine: "tairsearch", Run: run(20000, 0), Docs: 1000},
				{Engine: "elasticsearch", Run: run(5000, 2), Docs: 998}}},
			{Name: "search", Kind: "query", Clients: 8, Rate: 1000,
				Parity: []result.TemplateParity{{Template: "term", Samples: 10, TotalAgreement: 0.7, TopOverlap: 0.9, Cause: "analyzers cut 数据库 apart"},
					{Template: "range", Samples: 10, TotalAgreement: 1, TopOverlap: 1}},
				Engines: []result.TrackEngine{
					{Engine: "tairsearch", Run: open, Templates: []result.TemplateStats{{Name: "term", ZeroHitShare: 0.1, MeanHits: 12.5,
						Latency: lat(300, 900), CorrectedLatency: lat(450, 4800)}}},
					{Engine: "elasticsearch", Run: run(800, 0), Templates: []result.TemplateStats{{Name: "term", ZeroHitShare: 0.2, MeanHits: 11}}}}}},
		Warnings: []string{"the engines diverge on term"}}
}

// TestRenderBothEngines holds the two-engine summary to its golden file.
func TestRenderBothEngines(t *testing.T) {
	var b bytes.Buffer
	Render(&b, twoEngines())
	testenv.Golden(t, "render-two-engines.golden", b.Bytes())
	assert.Contains(t, b.String(), "error on elasticsearch (reply, 2): ERR bad query", "an error's example on one line")
}

func TestMs(t *testing.T) {
	assert.Equal(t, "-", ms(0))
	assert.Equal(t, "1.25", ms(1250))
	assert.Equal(t, 1, boolInt(true))
	assert.Equal(t, 0, boolInt(false))
}

// TestNames collects the keys and string values a query body names.
func TestNames(t *testing.T) {
	got := names([]byte(`{"query":{"bool":{"must":[{"match":{"title":"数据"}},{"range":{"price":{"gte":1}}}]}}}`))
	for _, want := range []string{"query", "bool", "must", "match", "title", "数据", "range", "price", "gte"} {
		assert.True(t, got[want], want)
	}
	assert.False(t, got["1"], "numbers are not names")
	assert.Empty(t, names([]byte(`not json`)))
	assert.Equal(t, []string{"a", "b"}, first([]string{"a", "b", "c"}, 2))
	assert.Equal(t, []string{"a"}, first([]string{"a"}, 10))
}
