package htmlreport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func run(t *testing.T, lat int64, open bool) *result.Run {
	h := stats.NewHistogram()
	for i := range int64(1000) {
		require.NoError(t, h.RecordValue(lat+i%50))
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	require.NoError(t, err)
	r := &result.Run{Header: result.Header{Schema: result.SchemaRun, Version: "test", StartedAt: time.Unix(1_800_000_000, 0).UTC()},
		Command: "SET k v", Config: result.RunConfig{Mode: "one command per round trip"}, DurationMS: 3000, Histogram: string(enc)}
	r.Totals.OpsPerSec = 1000
	l := float64(lat)
	r.Totals.Latency = result.Latency{Min: l, Mean: l + 25, P50: l + 25, P90: l + 45, P99: l + 49, P999: l + 49, Max: l + 49}
	r.Totals.HeadlineLatency = result.FromSend
	for s := range 3 {
		v := float64(lat)
		r.Series = append(r.Series, result.Interval{Second: s, Ops: 333, Requests: 333, OpsPerSec: 333, P50US: &v, P99US: &v, MeanUS: &v})
		if open {
			c := 2 * v
			r.Series[s].CorrectedP50US, r.Series[s].CorrectedP99US = &c, &c
		}
	}
	if open { // users waited twice the service time
		r.HistogramCorrected = string(enc)
		c := result.Latency{Min: 2 * l, Mean: 2*l + 50, P50: 2*l + 50, P90: 2*l + 90, P99: 2*l + 98, P999: 2*l + 98, Max: 2*l + 98}
		r.Totals.CorrectedLatency, r.Totals.HeadlineLatency = &c, result.FromIntendedStart
	}
	return r
}

func TestGoldenReport(t *testing.T) {
	now = func() time.Time { return time.Unix(1_800_000_100, 0) }
	suite := &result.WhitepaperSuite{Header: result.Header{Schema: result.SchemaWhitepaper, Version: "test"}, Suite: "enhanced",
		Cases: []result.WhitepaperCase{{Name: "SET 64 B", Measured: result.WhitepaperFigures{QPS: 100000},
			Reference: result.WhitepaperFigures{QPS: 200000}, Ratio: 0.5}}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, []Input{{"closed.json", run(t, 100, false)}, {"open.json", run(t, 200, true)}, {"suite.json", suite}}))
	page := b.String()
	assert.Equal(t, 4, strings.Count(page, `class="chart"`), "percentiles, throughput, latency and errors (no server samples)")
	assert.Contains(t, page, "open.json — latency from the intended start")
	assert.Contains(t, page, "open.json — service time, latency from the send")
	assert.Contains(t, page, "ms (open-loop runs: latency from the intended start; closed-loop: latency from the send)", "the axis follows the runs' modes")
	assert.Contains(t, page, "<td>latency from the intended start</td><td>0.450</td><td>0.498</td><td>0.498</td><td>0.498</td><td>0.249</td>",
		"the open-loop run's row leads with its latency from the intended start, its service time beside it")
	assert.Contains(t, page, "<td>latency from the send</td><td>0.125</td><td>0.149</td><td>0.149</td><td>0.149</td><td>— (the same)</td>")
	assert.Contains(t, page, `<rect class="bar low" width="25.0"`, "a ratio of 0.5: a sixth of the bar's 3.0 scale, marked low")
	testenv.Golden(t, "report.html", b.Bytes())

	// The same runs and suite against the embedded server: every section
	// names it "not Tair", and the bars are grey, for scale only.
	embedded := &result.Target{Addr: "127.0.0.1:40001", InProcess: true,
		Server: &result.ServerIdentity{Name: "tairbench-embedded", Version: "7.0.0", Embedded: true}}
	closed, open := run(t, 100, false), run(t, 200, true)
	for _, r := range []*result.Run{closed, open} {
		r.Config.Target, r.Config.Connections = embedded, 8
	}
	open.Totals.Schedule = &result.Schedule{Rate: 1000, Arrivals: "constant"}
	suite.Target = embedded
	b.Reset()
	require.NoError(t, Write(&b, []Input{{"closed.json", closed}, {"open.json", open}, {"suite.json", suite}}))
	page = b.String()
	assert.Contains(t, page, "<td>127.0.0.1:40001: tairbench&#39;s embedded server, not Tair (in this process)</td>")
	assert.Contains(t, page, "one command per round trip, 8 connections, open-loop at 1000 requests/s (constant arrivals), 3 s")
	assert.Contains(t, page, "0.50 (for scale only)")
	assert.NotContains(t, page, `class="bar low"`, "no verdict colours beside a target that is not Tair")
	testenv.Golden(t, "report-embedded.html", b.Bytes())

	// Against redis-server: named, with no note.
	redis := &result.Target{Addr: "127.0.0.1:6379", Server: &result.ServerIdentity{Name: "redis", Version: "7.0.15"}}
	closed.Config.Target, open.Config.Target = redis, redis
	b.Reset()
	require.NoError(t, Write(&b, []Input{{"closed.json", closed}, {"open.json", open}}))
	assert.Contains(t, b.String(), "<td>127.0.0.1:6379: redis 7.0.15</td>")
	b.Reset()
	require.NoError(t, Write(&b, []Input{{"closed.json", closed}}))
	assert.Contains(t, b.String(), "ms (latency from the send)", "a closed-loop run is not drawn from an intended start")
	assert.NotContains(t, b.String(), "intended start")
	assert.NotContains(t, b.String(), "not Tair")
	testenv.Golden(t, "report-redis.html", b.Bytes())

	search := &result.SearchComparison{Header: result.Header{Schema: result.SchemaSearch, Version: "test"},
		Engines:      []result.EngineResult{{Engine: "tairsearch", Write: run(t, 100, false)}},
		PublishedQPS: map[string]float64{"tairsearch write": 2000},
		Relevance: &result.TrackRelevance{Labels: "known items: 100 documents", K: 10, Templates: map[string]string{"title-in-abstract": "{}"},
			Engines: []result.RelevanceScores{{Template: "title-in-abstract", Engine: "tairsearch", Judged: 100, Recall: 0.6, MRR: 0.5, NDCG: 0.52}}}}
	b.Reset()
	require.NoError(t, Write(&b, []Input{{"search.json", search}}))
	assert.Contains(t, b.String(), "<td>tairsearch</td><td>write</td><td>1000</td><td>2000</td>", "measured beside published")
	assert.Contains(t, b.String(), `<rect class="bar low" width="25.0"`, "their ratio as a bar")
	assert.Contains(t, b.String(), "<tr><td>title-in-abstract</td><td>tairsearch</td><td>100</td><td>0.600</td><td>0.500</td><td>0.520</td>",
		"the known items' relevance beside the speed")
}

// A stream's page shows its windows and the insert-to-searchable delay as
// the terminal prints them, and no empty sweep chart.
func TestVectorStreamSection(t *testing.T) {
	d := &result.VectorBench{Header: result.Header{Schema: result.SchemaVector, Version: "test"},
		Config: result.VectorConfig{Dataset: "clustered-16-5000", K: 10, Algorithm: "HNSW", Stream: true},
		Engines: []result.VectorEngine{{Engine: "elasticsearch", Param: "num_candidates",
			Stream: &result.VectorStream{InitialVectors: 2500, InsertRate: 1000, SearchRate: 100, Batch: 10, Param: 40, Inserted: 2500,
				InsertedPerSec: 998, Windows: []result.StreamWindow{{FromS: 0, ToS: 1, IndexVectors: 3000, Searches: 50, Scored: 50, Recall: 0.95, P50US: 4000, P99US: 9000}},
				Visible: result.StreamVisibility{Found: 3, P50MS: 1010, P99MS: 1030, MaxMS: 1030, ResolutionMS: 20, GiveUpS: 30}}}}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, []Input{{"stream.json", d}}))
	page := b.String()
	assert.Contains(t, page, "<tr><td>elasticsearch</td><td>0–1</td><td>3000</td><td>50</td><td>0.9500</td><td>4.000</td><td>9.000</td></tr>")
	assert.Contains(t, page, "insert-to-searchable, from the insert&#39;s reply to the first search that found the vector: p50 1010.0 ms")
	assert.NotContains(t, page, "QPS against recall")
}

func TestVectorSection(t *testing.T) {
	now = func() time.Time { return time.Unix(1_800_000_100, 0) }
	pt := func(p int, recall, qps float64) result.VectorPoint {
		return result.VectorPoint{Param: p, Recall: recall, QPS: qps}
	}
	d := &result.VectorBench{Header: result.Header{Schema: result.SchemaVector, Version: "test"},
		Config: result.VectorConfig{Dataset: "random-s-100-euclidean", Base: 90000, Queries: 10000, Dims: 100, Metric: "L2",
			K: 10, Algorithm: "HNSW", Selectivities: []float64{0.01}},
		Engines: []result.VectorEngine{
			{Engine: "tairvector", Target: "127.0.0.1:1 (tairbench's embedded server, not Tair)", Param: "ef_search",
				Points:   []result.VectorPoint{pt(10, 0.91, 19000), pt(40, 0.99, 15000)},
				AtRecall: []result.QPSAtRecall{{Recall: 0.9, QPS: 19000}, {Recall: 0.99, QPS: 15000}},
				Filtered: []result.VectorFiltered{{Selectivity: 0.01, Matching: 900, Filter: "attr < 900",
					Points: []result.VectorPoint{pt(10, 0.97, 4000)}}}},
			{Engine: "elasticsearch", Target: "http://127.0.0.1:9200", Param: "num_candidates",
				Points:   []result.VectorPoint{pt(10, 0.93, 1300), pt(40, 0.989, 1500)},
				AtRecall: []result.QPSAtRecall{{Recall: 0.9, QPS: 1500}, {Recall: 0.99}}}},
		Warnings: []string{"tairvector's figures come from tairbench's embedded server (Go, in this process), not Tair."}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, []Input{{"vector.json", d}}))
	page := b.String()
	assert.Equal(t, 1, strings.Count(page, `class="chart"`))
	assert.Contains(t, page, "QPS against recall@10")
	assert.Contains(t, page, "<tr><td>elasticsearch</td><td>num_candidates=10</td><td>0.9300</td><td>1300</td>", "the per-point table")
	assert.Contains(t, page, "<tr><td>tairvector</td><td>1 %</td><td>attr &lt; 900</td><td>ef_search=10</td><td>0.9700</td><td>4000</td>",
		"the filtered sweep, as the terminal prints it")
	assert.Less(t, strings.Index(page, "the sweep, one row per point"), strings.Index(page, `<svg class="chart"`), "the table leads")
	assert.Regexp(t, `class="tick" text-anchor="(start|end)">ef_search=40</text>`, page, "each marked point names its parameter")
	assert.Contains(t, page, "<td>elasticsearch</td><td title=\"\">1500</td><td>not reached</td>")
	assert.Contains(t, page, "not Tair")
	testenv.Golden(t, "report-vector.html", b.Bytes())
}

func TestTrackSection(t *testing.T) {
	now = func() time.Time { return time.Unix(1_800_000_100, 0) }
	q := run(t, 900, false)
	q.Operations = []result.Operation{{Name: "match-head", OpsPerSec: 700}, {Name: "terms-agg", OpsPerSec: 300},
		{Name: "ingest", OpsPerSec: 333, Latency: result.Latency{P50: 48_000, P99: 90_000}}}
	lat := result.Latency{P50: 900, P99: 950}
	d := &result.TrackRun{Header: result.Header{Schema: result.SchemaTrack, Version: "test"}, Track: "ecommerce-zh",
		Description: "Chinese e-commerce", Corpus: "generated products-zh, 1000 documents, seed 1", Docs: 1000,
		Engines:     map[string]string{"tairsearch": "embedded server, not Tair", "elasticsearch": "http://127.0.0.1:9200"},
		Differences: []string{"scoring: TairSearch TF-IDF (classic), Elasticsearch BM25"},
		TokenAgreement: []result.TokenAgreement{{Field: "title", TairSearch: "jieba", Elasticsearch: "tair_jieba", Implementation: "jieba on jieba-analysis 1.0.2",
			Samples: 200, Equal: 198, OnlyTairSearch: []result.TokenCount{{Token: "吉林", Count: 2}}, Example: `"吉林大学": tairsearch [吉林 大学 吉林大学], elasticsearch [大学 吉林大学]`}},
		Tasks: []result.TrackTask{{Name: "queries", Kind: "query", Clients: 4,
			Parity: []result.TemplateParity{{Template: "match-head", Samples: 5, TotalAgreement: 0.4, TopOverlap: 0.6, Divergence: 0.6,
				Cause: "analyzer (title: jieba on TairSearch, tair_jieba on Elasticsearch)", Example: `{"query":{"match":{"title":"数据"}}}`}},
			Engines: []result.TrackEngine{{Engine: "tairsearch", Run: q, Docs: 1000,
				Ingest: &result.IngestFigures{Docs: 1000, WritingS: 0.75, DocsPerSec: 1333, CorpusLimited: true}, Templates: []result.TemplateStats{
					{Name: "match-head", Requests: 700, MeanHits: 120.5, Latency: &lat}, {Name: "terms-agg", Requests: 300, ZeroHitShare: 0.1, Latency: &lat}}}}}},
		Warnings: []string{},
		Relevance: &result.TrackRelevance{Labels: "known items: 5 documents, each found by its title (the document is the one relevant answer)",
			Templates: map[string]string{"query": `{"query":{"match":{"abstract":"{{query}}"}}}`}, K: 10,
			Engines: []result.RelevanceScores{{Template: "query", Engine: "tairsearch", Judged: 5, Recall: 0.4, MRR: 0.4, NDCG: 0.4}}}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, []Input{{"track.json", d}}))
	page := b.String()
	assert.Contains(t, page, "<tr><td>query</td><td>tairsearch</td><td>5</td><td>0.400</td><td>0.400</td><td>0.400</td><td>0</td></tr>", "relevance, as the terminal prints it")
	assert.Less(t, strings.Index(page, "NDCG@10"), strings.Index(page, "<h3>task queries"), "quality leads, beside the tasks")
	assert.Contains(t, page, "<td>title</td><td>jieba / tair_jieba (jieba on jieba-analysis 1.0.2)</td><td>198/200 (99 %)</td><td>吉林 ×2</td><td>-</td>",
		"token agreement, as the terminal prints it")
	assert.Contains(t, page, "track.json: queries on tairsearch", "each task's run gets the run charts")
	assert.Contains(t, page, "<td>match-head</td><td>700</td><td>latency from the send</td><td>0.90</td><td>0.95</td><td></td><td>0 %</td><td>120.5</td>")
	assert.Contains(t, page, "embedded server, not Tair")
	assert.Contains(t, page, "<td>ingest (writers)</td><td>1333 docs/s while writing (0.8 s; the corpus ran out)</td><td>latency from the send</td><td>48.00</td><td>90.00</td>",
		"the writers' row, as the terminal prints it")
	assert.Contains(t, page, "<td>searchable</td><td>1000 docs</td>")
	assert.Less(t, strings.Index(page, "<th>totals agree</th>"), strings.Index(page, `<svg class="chart"`), "the tables lead, the task's charts follow")
	testenv.Golden(t, "report-track.html", b.Bytes())
}

// TestReportsAnswer: a one-point bitmap comparison leads with the
// operations table the terminal prints, and each of its charts marks its
// single point (no chart without data); a pipelined run's latency gets its
// own chart, named per request; a partial last second is a hollow marker;
// the font stack names CJK fonts.
func TestReportsAnswer(t *testing.T) {
	now = func() time.Time { return time.Unix(1_800_000_100, 0) }
	one := func(mean float64) *result.Run {
		return &result.Run{Totals: result.Totals{Ops: 10, OpsPerSec: 1000, Latency: result.Latency{Mean: mean, P99: 2 * mean}}}
	}
	bm := &result.BitmapComparison{Header: result.Header{Schema: result.SchemaBitmap, Version: "test"},
		Config: result.BitmapConfig{Structures: []string{"tairroaring", "redis-set"}, Operations: []string{"count"}, Connections: 4,
			Targets: map[string]result.Target{"tairroaring": {Addr: "127.0.0.1:1"}, "redis-set": {Addr: "127.0.0.1:2"}}},
		Points: []result.BitmapPoint{{Cardinality: 1000, Universe: 1 << 20, Keys: []result.BitmapKey{{Cardinality: 1000}},
			Structures: []result.BitmapStructure{{Name: "tairroaring", MemoryBytes: 500}, {Name: "redis-set", MemoryBytes: 9000}},
			Operations: []result.BitmapOperation{{Name: "count", Results: []result.BitmapOpResult{
				{Structure: "tairroaring", Closed: one(30)}, {Structure: "redis-set", Closed: one(4000), ServerUsecPerCall: 900}}}}}}}
	piped := run(t, 400, false)
	piped.Config.Template = &result.TemplateConfig{Pipeline: 16}
	partial := run(t, 100, false)
	partial.Series[2].SpanS = 0.4
	unstable := &result.CapacitySearch{SLO: "p99<1ms", Unstable: true, UnstableWhy: "2696/s held p99<1ms but 2427/s, 10% lower, broke it",
		Steps: []result.CapacityStep{{Rate: 2813}, {Rate: 2696, Held: true}}}
	suite := &result.RoaringSuite{Header: result.Header{Schema: result.SchemaRoaring, Version: "test"},
		Cases: []result.RoaringCaseResult{{Case: result.RoaringCase{ID: "single-read/getbit"}, Capacity: unstable, Run: &result.Run{}}}}
	paper := &result.WhitepaperSuite{Header: result.Header{Schema: result.SchemaWhitepaper, Version: "test"}, Suite: "essd",
		Cases: []result.WhitepaperCase{{Name: "read", Capacity: unstable}}}
	var b bytes.Buffer
	require.NoError(t, Write(&b, []Input{{"bitmap.json", bm}, {"piped.json", piped}, {"closed.json", partial}, {"suite.json", suite}, {"essd.json", paper}}))
	page := b.String()

	assert.Less(t, strings.Index(page, "<th>service time p99 ms</th>"), strings.Index(page, `<svg class="chart"`), "the runs' table leads")
	verdict := strings.Index(page, "operations, closed loop: mean ms / p99 ms / ops/s")
	require.Positive(t, verdict, "the operations table")
	assert.Less(t, verdict, strings.Index(page, "count: closed-loop mean latency against cardinality"), "the table leads, the charts follow")
	assert.Contains(t, page, "<td>count</td><td>0.030 / 0.060 / 1.0 K</td><td>4.000 / 8.000 / 1.0 K</td><td>tairroaring</td>")
	assert.Contains(t, page, "count, redis-set: the mean 4.000 ms at 4 connections is mostly queueing")
	charts := 0
	for _, chart := range strings.Split(page, `<svg class="chart"`)[1:] {
		if strings.Contains(chart, "against cardinality") {
			charts++
			assert.True(t, strings.Contains(chart, `class="data mark"`), "a one-point chart marks its point")
		}
	}
	assert.Equal(t, 2, charts, "memory and count")
	assert.Contains(t, page, "Latency by percentile (per request: a pipeline of 16 commands, not per command)")
	assert.Contains(t, page, "Latency by percentile (per request: one command per round trip)")
	assert.Contains(t, page, "Latency per second: p99 (solid) and p50 (dashed), per request of 16 pipelined commands")
	assert.Contains(t, page, "<td>latency from the send, per request of 16 commands</td>")
	assert.Contains(t, page, `fill="#fff"`, "the partial second's hollow marker")
	assert.Contains(t, page, "a partial second: the run ended 0.40 s into it")
	assert.Contains(t, page, "<td>!! no stable answer: the runs contradict each other (see the capacity table), 2 step(s)</td>", "the suite's note, as the terminal's")
	assert.Contains(t, page, "<td>no stable answer: 2696/s held p99&lt;1ms but 2427/s, 10% lower, broke it</td>", "the whitepaper case's search")
	assert.Contains(t, page, `"Noto Sans CJK SC"`)
	assert.Contains(t, page, `"WenQuanYi Micro Hei"`)
}

// TestTrendSection: a trend from the results store draws its table first,
// then one chart with the spread under the figure and the change point
// labelled.
func TestTrendSection(t *testing.T) {
	now = func() time.Time { return time.Unix(1_800_000_100, 0) }
	t0 := time.Date(2026, 11, 20, 2, 0, 0, 0, time.UTC)
	tr := report.Trend{Title: `"GET k-__RAND__" against redis`, Label: "QPS (commands/s)", Window: 7}
	for i := range 5 {
		p := report.TrendPoint{ID: int64(i + 1), Started: t0.AddDate(0, 0, i), Tags: "branch=main", Value: 1000, Lo: 990, Hi: 1010}
		if i > 0 {
			p.Judged, p.Outcome, p.Reason = true, "within noise", "+0.0 % from the baseline's median, within the 3.0 % noise line"
		}
		if i == 4 {
			p.Value, p.Lo, p.Hi, p.Change, p.ChangePoint = 800, 790, 810, -0.2, true
			p.Outcome, p.Reason = "regression", "20.0 % worse than the baseline's median, beyond the 5.0 % line (p = 1e-06)"
		}
		tr.Points = append(tr.Points, p)
	}
	var b bytes.Buffer
	require.NoError(t, Write(&b, nil, tr))
	page := b.String()
	assert.Contains(t, page, "0 result file(s) and 1 trend(s) from the results store")
	assert.Equal(t, 1, strings.Count(page, `class="chart"`))
	assert.Less(t, strings.Index(page, "change from the median of up to 7 before"), strings.Index(page, `<svg class="chart"`), "the table leads")
	assert.Contains(t, page, "◆ change point: run 5, -20.0 %")
	assert.Contains(t, page, "<td>◆ change point, regression: 20.0 % worse")
	testenv.Golden(t, "report-trend.html", b.Bytes())
}

// TestEventMarkers: a run's events are drawn on its per-second charts
// (a line where each was issued, a band to its completion), and its
// events table and write ledger are there as the terminal prints them.
func TestEventMarkers(t *testing.T) {
	r := run(t, 100, true)
	issued, done, rec := 1.25, 1.75, 1.0
	r.Events = &result.Events{Schema: result.SchemaEvents, SLO: "p99<2ms", RecoverSeconds: 3, SlotMS: 7.8125,
		Events: []result.Event{{Action: "failover", Text: "failover", IssuedS: &issued, CompletedS: &done,
			Score: &result.EventScore{NoReplyMS: 312, RecoveredS: &rec}}}}
	r.Ledger = &result.Ledger{Schema: result.SchemaLedger, Sent: 10, Acknowledged: 9, Unacknowledged: 1}
	var b bytes.Buffer
	require.NoError(t, Write(&b, []Input{{"failover.json", r}}))
	page := b.String()
	assert.GreaterOrEqual(t, strings.Count(page, `class="event"`), 3, "a marker on each per-second chart")
	assert.Contains(t, page, `class="event-span"`)
	assert.Contains(t, page, "<td>failover</td><td>1.250</td><td>1.750</td><td>312</td><td>1 s</td>")
	assert.Contains(t, page, "write ledger (--verify-writes)")
	assert.Contains(t, page, "<tr><td>acknowledged</td><td>9</td></tr>")
}
