package search

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/tairbench/tairbench/internal/driver/fts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/wiki"
)

func loadSample(t testing.TB) []wiki.Doc {
	r, c, err := wiki.Open(testenv.RepoPath(t, "testdata/wiki/enwiki-abstract-sample-2019.xml"))
	require.NoError(t, err)
	defer c.Close()
	var docs []wiki.Doc
	for {
		var d wiki.Doc
		err := r.Next(&d)
		if errors.Is(err, io.EOF) {
			return docs
		}
		require.NoError(t, err)
		docs = append(docs, d)
	}
}

// bothEngines returns the embedded TairSearch and a real Elasticsearch, both
// reset and loaded with docs.
func bothEngines(t *testing.T, docs []wiki.Doc, index string) (fts.Engine, fts.Engine) {
	ctx := context.Background()
	srv, err := server.Start(server.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	ts, err := New("tairsearch", fts.Options{Target: endpoint.Target{Addr: srv.Addr(), InProcess: true}, Index: index})
	require.NoError(t, err)
	el, err := New("elasticsearch", fts.Options{Target: endpoint.Target{Addr: testenv.ElasticsearchURL(t)}, Index: index})
	require.NoError(t, err)
	for _, e := range []fts.Engine{ts, el} {
		require.NoError(t, e.Reset(ctx))
		c, err := e.NewClient(ctx)
		require.NoError(t, err)
		failed, _, err := c.Write(ctx, fts.EncodeAll(docs), true)
		require.NoError(t, err)
		require.Zero(t, failed, e.Name())
		require.NoError(t, e.Refresh(ctx))
		n, err := e.Count(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(len(docs)), n, e.Name())
	}
	return ts, el
}

// parityQueries are term, match, bool and terms-aggregation queries with no
// stop words (TairSearch's standard analyzer drops them, Elasticsearch's keeps them).
var parityQueries = []string{
	`{"query":{"term":{"abstract":"world"}}}`,
	`{"query":{"term":{"abstract":"political"}}}`,
	`{"query":{"term":{"abstract":"american"}}}`,
	`{"query":{"term":{"abstract":"century"}}}`,
	`{"query":{"term":{"abstract":"hello"}}}`,
	`{"query":{"term":{"abstract":"language"}}}`,
	`{"query":{"term":{"abstract":"1"}}}`,
	`{"query":{"match":{"abstract":"political philosophy"}}}`,
	`{"query":{"match":{"abstract":"United States"}}}`,
	`{"query":{"match":{"abstract":{"query":"united states","operator":"and"}}}}`,
	`{"query":{"match":{"abstract":{"query":"city river capital","minimum_should_match":2}}}}`,
	`{"query":{"bool":{"must":[{"term":{"abstract":"world"}}],"must_not":[{"term":{"abstract":"war"}}]}}}`,
	`{"query":{"bool":{"should":[{"term":{"abstract":"music"}},{"term":{"abstract":"film"}}]}}}`,
	`{"query":{"bool":{"must":[{"match":{"abstract":"science"}}],"filter":[{"term":{"abstract":"computer"}}]}}}`,
	`{"query":{"terms":{"abstract":["actor","actress","singer"]}}}`,
	`{"query":{"prefix":{"abstract":{"value":"philos"}}}}`,
	`{"size":0,"query":{"term":{"abstract":"world"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"asc"}}}}}`,
	`{"size":0,"query":{"term":{"abstract":"state"}},"aggs":{"a1":{"terms":{"field":"id","order":{"_key":"desc"},"size":5}}}}`,
	`{"size":0,"query":{"match":{"abstract":"war"}},"aggs":{"a1":{"terms":{"field":"id"}}}}`,
}

func TestParityWithElasticsearch(t *testing.T) {
	docs := loadSample(t)
	require.Len(t, docs, 368)
	ts, el := bothEngines(t, docs, "parity")
	ctx := context.Background()
	nonzero := 0
	for _, q := range parityQueries {
		a, err := ts.Probe(ctx, []byte(q))
		require.NoError(t, err, q)
		b, err := el.Probe(ctx, []byte(q))
		require.NoError(t, err, q)
		assert.Equal(t, b.Total, a.Total, "total hits of %s", q)
		assert.Equal(t, b.Buckets, a.Buckets, "buckets of %s", q)
		if a.Total > 0 {
			nonzero++
		}
	}
	assert.GreaterOrEqual(t, nonzero, 15, "the queries hit documents")
}
