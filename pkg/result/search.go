package result

// SearchComparison is TairSearch against Elasticsearch (schema SchemaSearch).
type SearchComparison struct {
	Header
	Config SearchConfig `json:"config"`
	// Parity is each query's hits on every engine, checked before timing.
	Parity   []ParityCheck  `json:"parity"`
	Engines  []EngineResult `json:"engines"`
	Warnings []string       `json:"warnings"`
	// PublishedQPS is the whitepaper's QPS per engine and phase ("tairsearch
	// write", "elasticsearch agg cache off", …), for reports.
	PublishedQPS map[string]float64 `json:"published_qps,omitempty"`
	// Relevance is how well each engine ranked known items of the file
	// (absent when none were asked for).
	Relevance *TrackRelevance `json:"relevance,omitempty"`
	// Thresholds are the verdicts of the run's relevance thresholds.
	Thresholds []ThresholdVerdict `json:"thresholds,omitempty"`
}

// SearchConfig is how the comparison was run.
type SearchConfig struct {
	File        string `json:"file"`
	Docs        int64  `json:"docs"`
	Connections int    `json:"connections"`
	Bulk        int    `json:"bulk"`
	Queries     int64  `json:"queries"`
	// NoCacheQueries is the query count of the cache-off aggregation runs.
	NoCacheQueries int64  `json:"no_cache_queries"`
	TermQuery      string `json:"term_query"`
	AggQuery       string `json:"agg_query"`
	// Engines maps each engine to where it was reached (redacted).
	Engines map[string]string `json:"engines"`
}

// ParityCheck is one query's hits on every engine.
type ParityCheck struct {
	Query string          `json:"query"`
	Hits  map[string]Hits `json:"hits"`
	Agree bool            `json:"agree"`
}

// Hits is what parity compares: the total, the aggregation buckets and
// the ids of the hits returned, in order.
type Hits struct {
	Total   int64    `json:"total"`
	Buckets []Bucket `json:"buckets"`
	IDs     []string `json:"ids,omitempty"`
}

// Bucket is one terms-aggregation bucket.
type Bucket struct {
	Key   string `json:"key"`
	Count int64  `json:"count"`
}

// Memory is an engine's memory report (bytes; zero when unknown).
type Memory struct {
	// Used is TairSearch's INFO used_memory, or Elasticsearch's JVM heap used.
	Used int64 `json:"used_bytes"`
	// Store is Elasticsearch's index store size on disk.
	Store int64 `json:"store_bytes,omitempty"`
	// Detail names the figures.
	Detail string `json:"detail"`
}

// EngineResult is one engine's part of a comparison.
type EngineResult struct {
	Engine       string `json:"engine"`
	Docs         int64  `json:"docs"`
	MemoryBefore Memory `json:"memory_before"`
	MemoryAfter  Memory `json:"memory_after"`
	Write        *Run   `json:"write"`
	Term         *Run   `json:"term_query"`
	AggCache     *Run   `json:"agg_cache_on"`
	AggNoCache   *Run   `json:"agg_cache_off"`
}
