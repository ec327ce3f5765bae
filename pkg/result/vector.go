package result

// SchemaVector identifies a VectorBench.
const SchemaVector = "tairbench.vector/v1"

// VectorBench is a vector search benchmark (schema SchemaVector): one
// dataset loaded into each engine, then a sweep of the search parameter
// with recall@k against exact ground truth and QPS through the engine.
type VectorBench struct {
	Header
	Config   VectorConfig   `json:"config"`
	Engines  []VectorEngine `json:"engines"`
	Warnings []string       `json:"warnings"`
}

// VectorConfig is how the benchmark was run.
type VectorConfig struct {
	Dataset string `json:"dataset"`
	// Source says where the vectors came from.
	Source  string `json:"source"`
	Dims    int    `json:"dims"`
	Metric  string `json:"metric"`
	Base    int    `json:"base_vectors"`
	Queries int    `json:"queries"`
	K       int    `json:"k"`
	// Algorithm is HNSW or FLAT, with M and ef_construct for HNSW.
	Algorithm       string  `json:"algorithm"`
	M               int     `json:"m,omitempty"`
	EfConstruct     int     `json:"ef_construct,omitempty"`
	Connections     int     `json:"connections"`
	LoadConnections int     `json:"load_connections"`
	Batch           int     `json:"batch"`
	DurationMS      float64 `json:"duration_ms"`
	WarmupMS        float64 `json:"warmup_ms"`
	Rate            float64 `json:"rate,omitempty"`
	// Selectivities are the filtered sweeps' shares of the base vectors
	// each search may return.
	Selectivities []float64 `json:"filter_selectivities,omitempty"`
}

// VectorEngine is one engine's part: load, memory and the sweep.
type VectorEngine struct {
	Engine string `json:"engine"`
	// Target names where the engine ran ("…, embedded server, not Tair").
	Target string `json:"target"`
	// Param is the swept parameter (ef_search, num_candidates).
	Param        string        `json:"param"`
	Load         *Run          `json:"load"`
	InsertPerSec float64       `json:"insert_per_sec"`
	BuildSeconds float64       `json:"build_seconds"`
	Memory       VectorMemory  `json:"memory"`
	Points       []VectorPoint `json:"points"`
	AtRecall     []QPSAtRecall `json:"qps_at_recall"`
	// Filtered are the sweeps again, once per filter selectivity.
	Filtered []VectorFiltered `json:"filtered,omitempty"`
}

// VectorFiltered is the sweep with every search kept to a share of the
// base vectors: those whose attribute is below a bound, recall counted
// against the exact nearest among them.
type VectorFiltered struct {
	Selectivity float64 `json:"selectivity"`
	// Matching is how many base vectors the filter keeps; Filter the
	// condition ("attr < 1000").
	Matching int           `json:"matching_vectors"`
	Filter   string        `json:"filter"`
	Points   []VectorPoint `json:"points"`
	AtRecall []QPSAtRecall `json:"qps_at_recall"`
}

// VectorMemory is an engine's memory after the load (bytes; 0: unknown).
type VectorMemory struct {
	Index  int64  `json:"index_bytes"`
	Used   int64  `json:"used_bytes"`
	Detail string `json:"detail"`
}

// VectorPoint is one value of the search parameter.
type VectorPoint struct {
	Param  int     `json:"param"`
	Recall float64 `json:"recall"`
	// QPS is the closed loop's queries per second.
	QPS    float64 `json:"qps"`
	Closed *Run    `json:"closed"`
	Open   *Run    `json:"open,omitempty"`
}

// QPSAtRecall is the QPS an engine reaches at a recall: interpolated
// between the two sweep points around it on the recall/QPS frontier, or
// the best point's QPS when every point is above it; 0 when no point
// reached it.
type QPSAtRecall struct {
	Recall float64 `json:"recall"`
	QPS    float64 `json:"qps"`
	How    string  `json:"how"`
}
