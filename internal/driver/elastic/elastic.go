// Package elastic is the Elasticsearch driver of fts.Engine: its admin
// calls through go-elasticsearch, its measured requests through fasthttp.
package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/driver/vectors"

	"github.com/tairbench/tairbench/internal/serverstat"

	es "github.com/elastic/go-elasticsearch/v8"
	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/tairbench/tairbench/internal/endpoint"
)

type elastic struct {
	o fts.Options
	// es is go-elasticsearch's client without its API table: requests are
	// esapi request values run on it (Do), so the binary links only the
	// endpoints used, not the hundreds esapi.New would reach.
	es *es.BaseClient
	// base is the engine's URL, for the workers' own connections.
	base string
	// cores is the processors the nodes may use (0: not known yet),
	// read once by the sampler.
	coresOnce sync.Once
	cores     float64
}

func New(o fts.Options) (fts.Engine, error) {
	if o.Index == "" {
		o.Index = "wiki"
	}
	if o.RefreshInterval == "" {
		o.RefreshInterval = "1s"
	}
	addr := o.Target.Addr
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	conns := max(o.Connections, 4)
	cfg := es.Config{
		Addresses: []string{addr},
		Transport: &http.Transport{
			MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
			DialContext:     (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			IdleConnTimeout: 90 * time.Second, ResponseHeaderTimeout: 60 * time.Second,
		},
		MaxRetries: 0, DisableRetry: true,
	}
	if l := o.Target.Login(); !l.Empty() {
		cfg.Username, cfg.Password = l.User, l.Password
	}
	c, err := es.NewBaseClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("elasticsearch: %w", err)
	}
	return &elastic{o: o, es: c, base: addr}, nil
}

func (e *elastic) Name() string { return "elasticsearch" }

// do runs a request and returns the body of a 2xx reply.
func do(ctx context.Context, c *es.BaseClient, req esapi.Request) ([]byte, error) {
	res, err := req.Do(ctx, c)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.IsError() {
		return body, &HTTPError{Status: res.StatusCode, Body: clip(body), Reason: reason(body)}
	}
	return body, nil
}

// HTTPError is an error reply from Elasticsearch (the request reached it).
type HTTPError struct {
	Status int
	Body   string
	// Reason is Elasticsearch's "type: reason" from the body ("" when it has none).
	Reason string
}

// Error returns the status and Elasticsearch's reason (or the start of the body).
// Replied marks the error as the engine's answer (engine.IsReply).
func (e *HTTPError) Replied() {}

// Error returns the status and Elasticsearch's reason.
func (e *HTTPError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("HTTP %d: %s", e.Status, e.Reason)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body)
}

// esError is the error object of an Elasticsearch reply or bulk item.
type esError struct {
	Type   string `json:"type"`
	Reason string `json:"reason"`
}

func (e *esError) String() string {
	if e == nil || e.Type == "" {
		return ""
	}
	return e.Type + ": " + e.Reason
}

// reason reads "type: reason" from an error reply.
func reason(body []byte) string {
	var r struct {
		Error *esError `json:"error"`
	}
	if json.Unmarshal(body, &r) != nil {
		return ""
	}
	return r.Error.String()
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// settings are the index body: the whitepaper's settings (one shard;
// replicas 0 on a single node, where the whitepaper's 1 would leave the
// index yellow) with Schema, or a track's body with those settings added
// where it gives none.
func (e *elastic) settings() string {
	refresh := e.o.RefreshInterval
	if e.o.Realtime {
		refresh = "-1" // each write asks for a refresh itself
	}
	if e.o.Mapping != nil {
		body, err := withDefaultSettings(e.o.Mapping, refresh)
		if err == nil {
			return string(body)
		}
		return string(e.o.Mapping) // Elasticsearch will say what is wrong
	}
	return fmt.Sprintf(`{"settings":{"number_of_shards":1,"number_of_replicas":0,"refresh_interval":%q,"index.queries.cache.enabled":false},`, refresh) +
		strings.TrimPrefix(fts.Schema, "{")
}

// withDefaultSettings adds one shard, no replicas and the refresh interval
// to an index body's settings, keeping what the body sets itself.
func withDefaultSettings(body []byte, refresh string) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	st, _ := m["settings"].(map[string]any)
	if st == nil {
		st = map[string]any{}
	}
	ix, _ := st["index"].(map[string]any)
	has := func(k string) bool {
		_, a := st[k]
		_, b := ix[k]
		return a || b
	}
	for k, v := range map[string]any{"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": refresh} {
		if !has(k) {
			st[k] = v
		}
	}
	m["settings"] = st
	return json.Marshal(m)
}

func (e *elastic) Check(ctx context.Context) error {
	if _, err := do(ctx, e.es, esapi.ClusterHealthRequest{}); err != nil {
		if why := notHTTP(err); why != "" {
			return fmt.Errorf("elasticsearch at %s cannot be used: %s", e.o.Target.Addr, why)
		}
		return fmt.Errorf("elasticsearch at %s cannot be used: %w", e.o.Target.Addr, describeHTTP(err))
	}
	return nil
}

// Identify implements catalog.Identifier: GET /, the node's product,
// version and build; where GET / is refused (a node built without it),
// the local node's version and build (_nodes/_local).
func (e *elastic) Identify(ctx context.Context) (catalog.Identity, error) {
	body, err := do(ctx, e.es, esapi.InfoRequest{})
	if err == nil {
		return parseInfo(body)
	}
	var he *HTTPError
	if !errors.As(err, &he) {
		return catalog.Identity{}, fmt.Errorf("elasticsearch at %s: GET /: %w", e.o.Target.Addr, describeHTTP(err))
	}
	body, err = do(ctx, e.es, esapi.NodesInfoRequest{NodeID: []string{"_local"}, FilterPath: []string{"nodes.*.version", "nodes.*.build_hash"}})
	if err != nil {
		return catalog.Identity{}, fmt.Errorf("elasticsearch at %s: GET / and _nodes/_local: %w", e.o.Target.Addr, describeHTTP(err))
	}
	return parseNodes(body)
}

// parseNodes reads _nodes/_local's reply, filtered to its version and
// build: {"nodes":{"ID":{"version":…,"build_hash":…}}}.
func parseNodes(body []byte) (catalog.Identity, error) {
	var r struct {
		Nodes map[string]struct {
			Version   string `json:"version"`
			BuildHash string `json:"build_hash"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(body, &r); err == nil {
		for _, n := range r.Nodes {
			if n.Version != "" {
				return identity("", n.Version, n.BuildHash), nil
			}
		}
	}
	return catalog.Identity{}, fmt.Errorf("_nodes/_local gave no version: %.80q", body)
}

// identity names a node: Elasticsearch unless its distribution says
// otherwise, its build hash shortened.
func identity(distribution, version, build string) catalog.Identity {
	id := catalog.Identity{Name: "elasticsearch", Version: version, Build: build}
	if distribution != "" {
		id.Name = distribution
	}
	if len(id.Build) > 12 {
		id.Build = id.Build[:12]
	}
	return id
}

// parseInfo reads GET /'s reply: {"version":{"number":…,"build_hash":…,
// "distribution":…}} (OpenSearch names its distribution).
func parseInfo(body []byte) (catalog.Identity, error) {
	var info struct {
		Version struct {
			Number       string `json:"number"`
			BuildHash    string `json:"build_hash"`
			Distribution string `json:"distribution"`
		} `json:"version"`
	}
	if err := json.Unmarshal(body, &info); err != nil || info.Version.Number == "" {
		return catalog.Identity{}, fmt.Errorf("GET / gave no version: %.80q", body)
	}
	return identity(info.Version.Distribution, info.Version.Number, info.Version.BuildHash), nil
}

// notHTTP says why err, the first request's, shows a server that is
// reachable but does not speak HTTP ("" when it does not show that).
func notHTTP(err error) string {
	var ne *net.OpError
	switch {
	case errors.As(err, &ne) && ne.Op == "dial":
		return "" // not reached at all: the cause says why
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		return "it closed the connection without an HTTP answer: not an HTTP server (a Redis port?)"
	case strings.Contains(err.Error(), "malformed HTTP"):
		return fmt.Sprintf("it does not answer HTTP (%s): a Redis port?", describeHTTP(err))
	}
	return ""
}

// describeHTTP shortens net/http's transport errors to their cause.
func describeHTTP(err error) error {
	var ne *net.OpError
	if errors.As(err, &ne) && ne.Err != nil {
		return ne.Err
	}
	return err
}

func (e *elastic) Ensure(ctx context.Context) error {
	res, err := esapi.IndicesExistsRequest{Index: []string{e.o.Index}}.Do(ctx, e.es)
	if err != nil {
		return fmt.Errorf("elasticsearch: %w", describeHTTP(err))
	}
	res.Body.Close()
	if res.StatusCode == http.StatusOK {
		return nil
	}
	if _, err := do(ctx, e.es, esapi.IndicesCreateRequest{Index: e.o.Index, Body: strings.NewReader(e.settings())}); err != nil {
		return fmt.Errorf("elasticsearch: create index: %w", err)
	}
	return nil
}

func (e *elastic) Reset(ctx context.Context) error {
	_, _ = do(ctx, e.es, esapi.IndicesDeleteRequest{Index: []string{e.o.Index}, IgnoreUnavailable: boolPtr(true)})
	if _, err := do(ctx, e.es, esapi.IndicesCreateRequest{Index: e.o.Index, Body: strings.NewReader(e.settings())}); err != nil {
		return fmt.Errorf("elasticsearch: create index: %w", err)
	}
	return nil
}

func boolPtr(b bool) *bool { return &b }

func (e *elastic) Refresh(ctx context.Context) error {
	if _, err := do(ctx, e.es, esapi.IndicesRefreshRequest{Index: []string{e.o.Index}}); err != nil {
		return fmt.Errorf("elasticsearch: refresh: %w", err)
	}
	return nil
}

func (e *elastic) Count(ctx context.Context) (int64, error) {
	body, err := do(ctx, e.es, esapi.CountRequest{Index: []string{e.o.Index}})
	if err != nil {
		return 0, fmt.Errorf("elasticsearch: count: %w", err)
	}
	var r struct {
		Count int64 `json:"count"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, err
	}
	return r.Count, nil
}

// withTotal adds track_total_hits:true so that totals are exact.
func withTotal(query []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(query, &m) != nil {
		return query
	}
	if _, ok := m["track_total_hits"]; !ok {
		m["track_total_hits"] = json.RawMessage("true")
	}
	b, _ := json.Marshal(m)
	return b
}

func (e *elastic) Probe(ctx context.Context, query []byte) (fts.Hits, error) {
	body, err := do(ctx, e.es, esapi.SearchRequest{Index: []string{e.o.Index}, Body: bytes.NewReader(withTotal(query)),
		RequestCache: boolPtr(false)})
	if err != nil {
		return fts.Hits{}, fmt.Errorf("elasticsearch: search: %w", err)
	}
	return fts.ParseHits(body)
}

func (e *elastic) Memory(ctx context.Context) (fts.Memory, error) {
	body, err := do(ctx, e.es, esapi.IndicesStatsRequest{Index: []string{e.o.Index}, Metric: []string{"store"}})
	if err != nil {
		return fts.Memory{}, fmt.Errorf("elasticsearch: index stats: %w", err)
	}
	var st struct {
		All struct {
			Primaries struct {
				Store struct {
					Size int64 `json:"size_in_bytes"`
				} `json:"store"`
			} `json:"primaries"`
		} `json:"_all"`
	}
	_ = json.Unmarshal(body, &st)
	nodes, err := esSampler{e}.Read(ctx) // the node stats the timeline reads
	if err != nil {
		return fts.Memory{}, err
	}
	return fts.Memory{Used: heapUsed(nodes), Store: st.All.Primaries.Store.Size,
		Detail: "JVM heap used (node stats), index store size (index stats)"}, nil
}

func (e *elastic) Close() error { return nil }

func (e *elastic) NewClient(ctx context.Context) (fts.Client, error) {
	l := e.o.Target.Login()
	h, err := newESConn(e.base, l.User, l.Password, e.o.Target.Timeout)
	if err != nil {
		return nil, err
	}
	// Ending the run (its context) ends the request in flight.
	c := &esClient{e: e, h: h, stopAbort: context.AfterFunc(ctx, h.abort)}
	refresh, index := "", "/"+url.PathEscape(e.o.Index)
	if e.o.Realtime {
		refresh = "?refresh=true"
	}
	c.docPath, c.refresh, c.bulkPath = index+"/_doc/", refresh, []byte(index+"/_bulk"+refresh)
	c.searchPath = [2][]byte{[]byte(index + "/_search?request_cache=false"), []byte(index + "/_search?request_cache=true")}
	return c, nil
}

type esClient struct {
	e         *elastic
	h         *esConn
	stopAbort func() bool
	buf       bytes.Buffer
	// The request paths, made once.
	docPath, refresh string
	bulkPath         []byte
	searchPath       [2][]byte // without, with the request cache
	path             []byte
}

// httpError is the error of a reply with a status of 300 or more.
func httpError(status int, body []byte) error {
	return &HTTPError{Status: status, Body: clip(body), Reason: reason(body)}
}

func (c *esClient) Write(ctx context.Context, docs []fts.Encoded, bulk bool) (int, string, error) {
	if !bulk {
		failed, why := 0, ""
		for _, d := range docs {
			c.path = append(append(append(c.path[:0], c.docPath...), url.PathEscape(d.ID)...), c.refresh...)
			status, body, err := c.h.do("PUT", c.path, "application/json", d.JSON)
			if err != nil {
				return failed, why, err
			}
			if status >= 300 {
				if failed++; why == "" {
					why = httpError(status, body).Error()
				}
			}
		}
		return failed, why, nil
	}
	c.buf.Reset()
	for _, d := range docs {
		fmt.Fprintf(&c.buf, `{"index":{"_id":%q}}`+"\n", d.ID)
		c.buf.Write(d.JSON)
		c.buf.WriteByte('\n')
	}
	status, body, err := c.h.do("POST", c.bulkPath, "application/x-ndjson", c.buf.Bytes())
	if err != nil {
		return 0, "", err
	}
	if status >= 300 {
		return len(docs), httpError(status, body).Error(), nil
	}
	return bulkFailures(body)
}

// bulkFailures counts the items of a bulk reply that failed and returns
// the first one's reason.
func bulkFailures(body []byte) (int, string, error) {
	// Elasticsearch writes "errors" before the items: most replies need no parsing.
	if head := body[:min(len(body), 64)]; bytes.Contains(head, []byte(`"errors":false`)) {
		return 0, "", nil
	}
	var r struct {
		Errors bool `json:"errors"`
		Items  []map[string]struct {
			Status int      `json:"status"`
			Error  *esError `json:"error"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, "", fmt.Errorf("elasticsearch: parse bulk reply: %w", err)
	}
	if !r.Errors {
		return 0, "", nil
	}
	n, why := 0, ""
	for _, it := range r.Items {
		for _, v := range it {
			if v.Status >= 300 {
				if n++; why == "" {
					why = fmt.Sprintf("HTTP %d: %s", v.Status, v.Error.String())
				}
			}
		}
	}
	return n, why, nil
}

// isHTTPError tells an error reply (the server answered) from a transport failure.
func isHTTPError(err error) bool {
	var he *HTTPError
	return errors.As(err, &he)
}

func (c *esClient) Search(ctx context.Context, query []byte, cache bool) (int64, error) {
	path := c.searchPath[0]
	if cache {
		path = c.searchPath[1]
	}
	status, body, err := c.h.do("POST", path, "application/json", query)
	if err != nil {
		return 0, err
	}
	if status >= 300 {
		return 0, httpError(status, body)
	}
	return fts.TotalHits(body), nil
}

// YieldTo implements engine.Yielder.
func (c *esClient) YieldTo(yield func(time.Time) time.Time) { c.h.yieldTo(yield) }

func (c *esClient) Close() error {
	c.stopAbort()
	c.h.close()
	return nil
}

func (e *elastic) Target() endpoint.Target { return e.o.Target }

func (e *elastic) Sampler() serverstat.Sampler { return esSampler{e: e} }

// Tokens runs _analyze with the field's own analyzer.
func (e *elastic) Tokens(ctx context.Context, field, _, text string) ([]string, error) {
	body, _ := json.Marshal(map[string]string{"field": field, "text": text})
	out, err := do(ctx, e.es, esapi.IndicesAnalyzeRequest{Index: e.o.Index, Body: bytes.NewReader(body)})
	if err != nil {
		return nil, fmt.Errorf("elasticsearch: analyze: %w", err)
	}
	return fts.ParseTokens(out)
}

// Engine is Elasticsearch's descriptor: full-text search and kNN vectors.
var Engine = catalog.Engine{Name: "elasticsearch", Product: "Elasticsearch", Reach: catalog.HTTP, Search: New, VectorParam: "num_candidates",
	Vectors: func(_ context.Context, o fts.Options) (vectors.Engine, error) { return NewVectors(o) }}
