package elastic

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/vectors"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/serverstat"
	"github.com/tairbench/tairbench/internal/vector"
	"github.com/tairbench/tairbench/pkg/resp"
)

// esVectors is the Elasticsearch driver of vectors.Engine: a dense_vector
// field "vec" with HNSW (or flat) index options, set up as ann-benchmarks
// sets it up (1 shard, 0 replicas, no refresh while loading, one segment
// after a force merge).
type esVectors struct{ e *elastic }

// Sampler reads the node stats, as the search engine's timeline does.
func (v esVectors) Sampler() serverstat.Sampler { return esSampler{e: v.e} }

// NewVectors returns the Elasticsearch vector engine on o.Target, index o.Index.
func NewVectors(o fts.Options) (vectors.Engine, error) {
	if o.Index == "" {
		o.Index = "vectors"
	}
	e, err := New(o)
	if err != nil {
		return nil, err
	}
	return &esVectors{e: e.(*elastic)}, nil
}

func (v *esVectors) Name() string                    { return "elasticsearch" }
func (v *esVectors) Target() endpoint.Target         { return v.e.o.Target }
func (v *esVectors) Param() string                   { return Engine.VectorParam }
func (v *esVectors) Check(ctx context.Context) error { return v.e.Check(ctx) }

// Identify implements catalog.Identifier.
func (v *esVectors) Identify(ctx context.Context) (catalog.Identity, error) { return v.e.Identify(ctx) }
func (v *esVectors) Close() error                                           { return nil }

// similarity maps a TairVector distance to Elasticsearch's (tairvector.md §8).
func similarity(m vector.Metric) (string, error) {
	switch m {
	case vector.L2:
		return "l2_norm", nil
	case vector.IP:
		return "max_inner_product", nil
	case vector.Cosine:
		return "cosine", nil
	}
	return "", fmt.Errorf("elasticsearch has no %s similarity for dense_vector", m)
}

func (v *esVectors) Create(ctx context.Context, s vectors.IndexSpec) error {
	sim, err := similarity(s.Metric)
	if err != nil {
		return err
	}
	opts := fmt.Sprintf(`{"type":"hnsw","m":%d,"ef_construction":%d}`, s.M, s.EfConstruct)
	if s.Algorithm == "FLAT" {
		opts = `{"type":"flat"}`
	}
	attr := ""
	if s.Attribute != "" {
		attr = fmt.Sprintf(`,%q:{"type":"integer"}`, s.Attribute)
	}
	body := fmt.Sprintf(`{"settings":{"number_of_shards":1,"number_of_replicas":0,"refresh_interval":"-1"},`+
		`"mappings":{"properties":{"vec":{"type":"dense_vector","dims":%d,"index":true,"similarity":%q,"index_options":%s}%s}}}`,
		s.Dims, sim, opts, attr)
	_, _ = do(ctx, v.e.es, esapi.IndicesDeleteRequest{Index: []string{v.e.o.Index}, IgnoreUnavailable: boolPtr(true)})
	if _, err := do(ctx, v.e.es, esapi.IndicesCreateRequest{Index: v.e.o.Index, Body: strings.NewReader(body)}); err != nil {
		return fmt.Errorf("elasticsearch: create index: %w", err)
	}
	return nil
}

// Finish refreshes, merges to one segment and refreshes again.
func (v *esVectors) Finish(ctx context.Context) error {
	idx := []string{v.e.o.Index}
	if err := v.e.Refresh(ctx); err != nil {
		return err
	}
	one := 1
	if _, err := do(ctx, v.e.es, esapi.IndicesForcemergeRequest{Index: idx, MaxNumSegments: &one}); err != nil {
		return fmt.Errorf("elasticsearch: force merge: %w", err)
	}
	return v.e.Refresh(ctx)
}

// LiveRefresh is how often Live has Elasticsearch refresh: its default.
const LiveRefresh = "1s"

// Live sets the index to refresh every LiveRefresh (the load ran with
// refreshes off).
func (v *esVectors) Live(ctx context.Context) error {
	body := `{"index":{"refresh_interval":"` + LiveRefresh + `"}}`
	if _, err := do(ctx, v.e.es, esapi.IndicesPutSettingsRequest{Index: []string{v.e.o.Index}, Body: strings.NewReader(body)}); err != nil {
		return fmt.Errorf("elasticsearch: refresh interval: %w", err)
	}
	return nil
}

func (v *esVectors) Memory(ctx context.Context) (vectors.Memory, error) {
	m, err := v.e.Memory(ctx)
	return vectors.Memory{Index: m.Store, Used: m.Used,
		Detail: "index store size (vectors and graph; HNSW is searched off-heap); JVM heap used"}, err
}

// EncodeInsert renders one _bulk body: an index action and {"vec":[…]}
// per vector, with "attr":A when attrs are given.
func (v *esVectors) EncodeInsert(dst []byte, first int, rows []float32, dims int, attr string, attrs []int32) []byte {
	for i := 0; i*dims < len(rows); i++ {
		dst = append(dst, `{"index":{"_id":"`...)
		dst = strconv.AppendInt(dst, int64(first+i), 10)
		dst = append(dst, "\"}}\n{\"vec\":"...)
		dst = appendFloats(dst, rows[i*dims:(i+1)*dims])
		if attrs != nil {
			dst = append(dst, ',')
			dst = strconv.AppendQuote(dst, attr)
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(attrs[i]), 10)
		}
		dst = append(dst, "}\n"...)
	}
	return dst
}

// EncodeSearch renders a knn search for k hits with num_candidates param
// (at least k), asking only for the ids; a filter is kNN's own (a range
// query), applied during the search.
func (v *esVectors) EncodeSearch(dst []byte, q []float32, k, param int, f vectors.Filter) []byte {
	dst = append(dst, `{"knn":{"field":"vec","query_vector":`...)
	dst = appendFloats(dst, q)
	dst = append(dst, `,"k":`...)
	dst = strconv.AppendInt(dst, int64(k), 10)
	dst = append(dst, `,"num_candidates":`...)
	dst = strconv.AppendInt(dst, int64(max(param, k)), 10)
	if f.On() {
		dst = append(dst, `,"filter":{"range":{`...)
		dst = strconv.AppendQuote(dst, f.Field)
		dst = append(dst, `:{"lt":`...)
		dst = strconv.AppendInt(dst, int64(f.Below), 10)
		dst = append(dst, `}}}`...)
	}
	dst = append(dst, `},"size":`...)
	dst = strconv.AppendInt(dst, int64(k), 10)
	return append(dst, `,"_source":false}`...)
}

func appendFloats(dst []byte, v []float32) []byte {
	dst = append(dst, '[')
	for i, f := range v {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, float64(f), 'g', -1, 32)
	}
	return append(dst, ']')
}

func (v *esVectors) NewClient(ctx context.Context) (vectors.Client, error) {
	l := v.e.o.Target.Login()
	h, err := newESConn(v.e.base, l.User, l.Password, v.e.o.Target.Timeout)
	if err != nil {
		return nil, err
	}
	idx := "/" + url.PathEscape(v.e.o.Index)
	return &esVecClient{h: h, stopAbort: context.AfterFunc(ctx, h.abort), bulk: []byte(idx + "/_bulk"),
		search: []byte(idx + "/_search?filter_path=hits.hits._id")}, nil
}

type esVecClient struct {
	h            *esConn
	stopAbort    func() bool
	bulk, search []byte
}

// YieldTo implements engine.Yielder.
func (c *esVecClient) YieldTo(yield func(time.Time) time.Time) { c.h.yieldTo(yield) }

func (c *esVecClient) Close() error {
	c.stopAbort()
	c.h.close()
	return nil
}

func (c *esVecClient) Insert(_ context.Context, req []byte, _ int) (int, string, error) {
	status, body, err := c.h.do("POST", c.bulk, "application/x-ndjson", req)
	if err != nil {
		return 0, "", err
	}
	if status >= 300 {
		return 0, "", &engine.ReplyError{Err: httpError(status, body)}
	}
	return bulkFailures(body)
}

var idKey = []byte(`"_id":"`)

func (c *esVecClient) Search(_ context.Context, req []byte, ids []uint32) ([]uint32, error) {
	status, body, err := c.h.do("POST", c.search, "application/json", req)
	if err != nil {
		return ids, err
	}
	if status >= 300 {
		return ids, &engine.ReplyError{Err: httpError(status, body)}
	}
	for {
		i := bytes.Index(body, idKey)
		if i < 0 {
			return ids, nil
		}
		body = body[i+len(idKey):]
		j := bytes.IndexByte(body, '"')
		n, ok := resp.ParseInt(body[:max(j, 0)])
		if j < 0 || !ok || n < 0 || n > 1<<32-1 {
			return ids, vectors.Refusal("a hit whose _id is not a base vector's number: %.40q", body)
		}
		ids = append(ids, uint32(n))
		body = body[j:]
	}
}
