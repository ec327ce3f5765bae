package engines

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/vectors"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// TestEveryEngineHandsOverItsSecondsThroughAStall: the workers of every
// engine, search and vector alike, waiting through a 1.2 s stall that
// spans a second's end, hand over what they recorded before it: each
// second's progress (its live line) holds what the run's series holds for
// that second. The engines run against the embedded server and the
// shared Elasticsearch, through Toxiproxy; the queries name an index that
// does not exist, so every reply is an error reply, counted the same way.
func TestEveryEngineHandsOverItsSecondsThroughAStall(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	es, err := url.Parse(testenv.ElasticsearchURL(t))
	require.NoError(t, err)
	for _, e := range All {
		for _, kind := range []string{"search", "vector"} {
			if kind == "search" && e.Search == nil || kind == "vector" && e.Vectors == nil {
				continue
			}
			t.Run(e.Name+" "+kind, func(t *testing.T) {
				upstream := srv.Addr()
				if e.Reach == catalog.HTTP {
					upstream = es.Host
				}
				x := testenv.StartToxiproxy(t, upstream)
				o := fts.Options{Target: endpoint.Target{Addr: x.Addr, Timeout: 5 * time.Second}, Index: "no-such-index", Connections: 2}
				if e.Reach == catalog.HTTP {
					o.Target.Addr = "http://" + x.Addr
				}
				f := stallFactory(t, e, kind, o)
				var mu sync.Mutex
				var live []result.Interval
				// The toxic holds each request 1.2 s and stays 1.5 s: removing
				// it sooner releases what it holds at once, so that a request
				// sent a few ms after it came could wait under 1 s (997 ms
				// on a busy machine, when it stayed 1 s).
				time.AfterFunc(1400*time.Millisecond, func() {
					name := x.Add(t, "latency", `"latency":1200`)
					time.AfterFunc(1500*time.Millisecond, func() { x.Remove(t, name) })
				})
				res, err := engine.Run(context.Background(), engine.Config{Workers: 2, Duration: 4 * time.Second,
					RequestTimeout: 5 * time.Second, Progress: func(p stats.Progress) {
						mu.Lock()
						live = append(live, p.Interval)
						mu.Unlock()
					}}, f)
				require.NoError(t, err)
				series := res.Snapshot.Series
				mu.Lock()
				defer mu.Unlock()
				require.GreaterOrEqual(t, len(live), 3, "a line for each second before the last")
				require.LessOrEqual(t, len(live), len(series))
				for i, iv := range live {
					assert.Equal(t, series[i].Second, iv.Second)
					assert.Equal(t, series[i].Ops, iv.Ops, "second %d: the live line holds the series' requests", iv.Second)
					assert.Equal(t, series[i].Errors, iv.Errors, "second %d: and its errors", iv.Second)
				}
				assert.Positive(t, series[1].Ops, "second 1 had replies before the stall")
				assert.GreaterOrEqual(t, res.Snapshot.Totals.Latency.Max, 1e6, "the stall held requests across a second's end")
			})
		}
	}
}

// stallFactory makes e's query workers of kind: one query, sent again and
// again.
func stallFactory(t *testing.T, e catalog.Engine, kind string, o fts.Options) engine.Factory {
	ctx := context.Background()
	if kind == "search" {
		se, err := e.Search(o)
		require.NoError(t, err)
		t.Cleanup(func() { se.Close() })
		return &fts.SearchFactory{Engine: se, Query: []byte(`{"query":{"match_all":{}}}`)}
	}
	ve, err := e.Vectors(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() { ve.Close() })
	return &vectors.Searches{Engine: ve, Requests: [][]byte{ve.EncodeSearch(nil, []float32{1, 2, 3, 4}, 10, 10, vectors.Filter{})}, Workers: 2}
}
