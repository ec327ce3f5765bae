package search

import (
	"bytes"
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tairbench/tairbench/internal/driver/fts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

func genFile(t *testing.T, docs int64) string { return testenv.WikiFile(t, docs, 5) }

func TestCompareBothEngines(t *testing.T) {
	srv, err := server.Start(server.Config{})
	require.NoError(t, err)
	defer srv.Close()
	ts, err := New("tairsearch", fts.Options{Target: endpoint.Target{Addr: srv.Addr(), InProcess: true}, Index: "cmp"})
	require.NoError(t, err)
	es, err := New("elasticsearch", fts.Options{Target: endpoint.Target{Addr: testenv.ElasticsearchURL(t)}, Index: "cmp", Connections: 4})
	require.NoError(t, err)
	file := genFile(t, 3000)
	term := `{"query":{"term":{"abstract":"world"}}}`
	agg := `{"size":0,"query":{"term":{"abstract":"world"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"asc"}}}}}`
	for _, bulk := range []int{1, 100} {
		c, err := Compare(context.Background(), CompareOptions{Engines: []fts.Engine{ts, es}, File: file, Concurrency: 4, Bulk: bulk,
			Queries: 200, TermQuery: term, AggQuery: agg, Seed: 1, NoServerStats: bulk == 100, KnownItems: 30})
		require.NoError(t, err)
		// The known items judge both engines' ranking: 30 titles, spread over
		// the 3,000 documents, each searched in the abstracts.
		require.NotNil(t, c.Relevance)
		require.Len(t, c.Relevance.Engines, 2)
		for _, s := range c.Relevance.Engines {
			assert.Equal(t, 30, s.Judged, s.Engine)
			assert.Zero(t, s.Failed, s.Engine)
			assert.InDelta(t, 0.5, s.MRR, 0.5, "a share")
		}
		for _, p := range c.Parity {
			assert.True(t, p.Agree, "%s: %+v", p.Query, p.Hits)
			assert.Greater(t, p.Hits["tairsearch"].Total, int64(20), "the query hits documents")
		}
		require.Len(t, c.Engines, 2)
		for _, er := range c.Engines {
			assert.Equal(t, int64(3000), er.Docs, er.Engine)
			assert.Equal(t, int64(3000), er.Write.Totals.Ops, er.Engine)
			assert.Zero(t, er.Write.Totals.Errors, er.Engine)
			assert.Equal(t, "input-exhausted", er.Write.StopReason)
			for _, run := range []*struct{ n int64 }{{er.Term.Totals.Ops}, {er.AggCache.Totals.Ops}, {er.AggNoCache.Totals.Ops}} {
				assert.Greater(t, run.n, int64(0))
			}
			assert.Zero(t, er.Term.Totals.Errors+er.AggCache.Totals.Errors+er.AggNoCache.Totals.Errors, er.Engine)
			assert.Greater(t, er.MemoryAfter.Used, int64(0), er.Engine)
			for _, run := range []*result.Run{er.Write, er.Term, er.AggCache, er.AggNoCache} {
				if bulk == 100 {
					assert.Nil(t, run.Server, "%s %s: --no-server-stats samples nothing", er.Engine, run.Name)
				} else {
					assert.NotNil(t, run.Server, "%s %s: the engine's own statistics", er.Engine, run.Name)
				}
			}
		}
		var b bytes.Buffer
		require.NoError(t, WriteTables(&b, c, ""))
		for _, want := range []string{"Write (documents/s", "Term query", "Aggregation", "elasticsearch (cache off)", "19430.09"} {
			assert.Contains(t, b.String(), want)
		}
	}
}

func TestElasticsearchBulkItemFailuresAreCounted(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	e, err := New("elasticsearch", fts.Options{Target: endpoint.Target{Addr: url}, Index: "conflict"})
	require.NoError(t, err)
	ctx := context.Background()
	testenv.ESRequest(t, http.MethodDelete, url+"/conflict?ignore_unavailable=true", nil)
	// abstract mapped as a number: every document is rejected item by item.
	testenv.ESRequest(t, http.MethodPut, url+"/conflict", []byte(`{"mappings":{"properties":{"abstract":{"type":"long"}}}}`))
	file := genFile(t, 300)
	run, err := RunWrite(ctx, e, WriteOptions{File: file, Concurrency: 2, Bulk: 50})
	require.NoError(t, err)
	assert.Equal(t, int64(300), run.Totals.Ops)
	assert.Greater(t, run.Totals.Errors, int64(250), "bulk item failures are counted")
	require.NotEmpty(t, run.Errors)
	assert.Contains(t, run.Errors[0].Message, "failed to parse field [abstract] of type [long]", "the engine's own reason")
	assert.Contains(t, run.Errors[0].Example, "document_parsing_exception")
	assert.Len(t, run.Errors, 1, "one cause, whatever the document: %v", run.Errors)
	assert.Contains(t, strings.Join(run.Warnings, "\n"), "commands failed")
	// One document per request: each rejection is an HTTP 400, counted too.
	run, err = RunWrite(ctx, e, WriteOptions{File: file, Docs: 40, Concurrency: 2})
	require.NoError(t, err)
	assert.Greater(t, run.Totals.Errors, int64(35), "an empty abstract is accepted as null; the others are not")
}

func TestElasticsearchStoppedMidRun(t *testing.T) {
	testenv.Integration(t)
	// A dedicated instance: this test stops it.
	t.Setenv("TAIRBENCH_ES_URL", "")
	url := testenv.ElasticsearchURL(t)
	port := url[strings.LastIndex(url, ":")+1:]
	e, err := New("elasticsearch", fts.Options{Target: endpoint.Target{Addr: url}, Index: "stop"})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, e.Reset(ctx))
	root := testenv.RepoPath(t, ".")
	stoppedAt := make(chan time.Time, 1)
	time.AfterFunc(1500*time.Millisecond, func() {
		_ = exec.Command("bash", filepath.Join(root, "scripts", "elasticsearch.sh"), "stop", port).Run()
		stoppedAt <- time.Now()
	})
	run, err := RunSearch(ctx, e, SearchOptions{Query: `{"query":{"match_all":{}}}`, Duration: 30 * time.Second, Concurrency: 2, Seed: 1})
	require.NoError(t, err, "a stopped engine is counted, not fatal")
	stopped := <-stoppedAt // the stop is done (and its time is read) before the run ended
	assert.Less(t, time.Since(stopped), 5*time.Second, "the run gives up within 5 s of the stop")
	assert.Equal(t, result.StopUnreachable, run.StopReason)
	assert.Greater(t, run.Totals.Ops, int64(10), "queries before the stop were measured")
	assert.Greater(t, run.Totals.ConnectFailures+run.Totals.TransportErrors, int64(0), "failures after the stop were counted")
	warnings := strings.Join(run.Warnings, "\n")
	assert.Contains(t, warnings, "the target stayed unreachable")
	require.NotEmpty(t, run.Errors)
	assert.Contains(t, run.Errors[0].Example, "connection refused", "the cause is named")
}

func TestElasticsearchRealtimeRefresh(t *testing.T) {
	e, err := New("elasticsearch", fts.Options{Target: endpoint.Target{Addr: testenv.ElasticsearchURL(t)}, Index: "realtime", Realtime: true})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, e.Reset(ctx))
	run, err := RunWrite(ctx, e, WriteOptions{File: genFile(t, 200), Docs: 30, Concurrency: 2})
	require.NoError(t, err)
	require.Zero(t, run.Totals.Errors)
	n, err := e.Count(ctx) // no explicit refresh: each write refreshed
	require.NoError(t, err)
	assert.Equal(t, int64(30), n)
}

func TestElasticsearchTimelineHasHeapAndIndexing(t *testing.T) {
	url := testenv.ElasticsearchURL(t)
	e, err := New("elasticsearch", fts.Options{Target: endpoint.Target{Addr: url}, Index: "timeline", Connections: 4})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, e.Reset(ctx))
	run, err := RunWrite(ctx, e, WriteOptions{File: genFile(t, 20000), Docs: 20000, Concurrency: 4, Bulk: 100})
	require.NoError(t, err)
	require.NotNil(t, run.Server)
	assert.Equal(t, "_nodes/stats", run.Server.Source)
	require.NotEmpty(t, run.Server.Samples)
	var heap, indexing int
	for _, s := range run.Server.Samples {
		if s.HeapUsed != nil && *s.HeapUsed > 0 {
			heap++
		}
		if s.IndexingPerSec != nil && *s.IndexingPerSec > 0 {
			indexing++
		}
	}
	assert.Positive(t, heap, "heap per second: %+v", run.Server.Samples)
	assert.Positive(t, indexing, "indexing rate per second")
}
