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
	// Stream is set when the streaming case ran in place of the sweeps.
	Stream bool `json:"stream,omitempty"`
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
	// Stream is the streaming case, which runs in place of the sweeps.
	Stream *VectorStream `json:"stream,omitempty"`
}

// VectorStream is the streaming case: from an index holding the first
// InitialVectors, the rest inserted at InsertRate while the queries are
// searched at SearchRate, with the search parameter at Param.
type VectorStream struct {
	InitialVectors int     `json:"initial_vectors"`
	InsertRate     float64 `json:"insert_rate"`
	SearchRate     float64 `json:"search_rate"`
	Batch          int     `json:"batch"`
	Param          int     `json:"param"`
	// Inserted is how many vectors were acknowledged during the stream;
	// InsertedPerSec their rate until the last one's reply.
	Inserted       int     `json:"inserted_vectors"`
	InsertedPerSec float64 `json:"inserted_per_sec"`
	// Run is the whole stream, its operations search, insert and probe
	// each with their latency, over time.
	Run *Run `json:"run"`
	// Windows are the stream second by second: the index's size, the
	// searches' recall and latency in each.
	Windows []StreamWindow `json:"windows"`
	// Visible is how long a vector took to become searchable.
	Visible StreamVisibility `json:"visible"`
	// Unkept counts searches whose hits were not kept for want of room
	// (their latency is in Run all the same).
	Unkept int `json:"unkept_searches,omitempty"`
}

// StreamWindow is one second of a stream (FromS to ToS after its start),
// as the run's series has it: the searches the engine counted and their
// latency from the send; IndexVectors, the vectors acknowledged by then;
// Recall, the mean recall@k of the Scored searches sent in that second,
// each against the exact nearest of the vectors acknowledged when it was
// sent.
type StreamWindow struct {
	FromS        float64 `json:"from_s"`
	ToS          float64 `json:"to_s"`
	IndexVectors int     `json:"index_vectors"`
	Searches     int64   `json:"searches"`
	Scored       int     `json:"scored"`
	Recall       float64 `json:"recall"`
	P50US        float64 `json:"p50_us"`
	P99US        float64 `json:"p99_us"`
}

// StreamVisibility is the insert-to-searchable delay: from an insert's
// reply to the reply of the first search that found the vector (a probe
// searching with the vector itself, every ResolutionMS).
type StreamVisibility struct {
	Found    int     `json:"found"`
	NotFound int     `json:"not_found"`
	P50MS    float64 `json:"p50_ms"`
	P99MS    float64 `json:"p99_ms"`
	MaxMS    float64 `json:"max_ms"`
	// ResolutionMS is the probe's interval: a delay is known to within it.
	ResolutionMS float64 `json:"resolution_ms"`
	// GiveUpS is how long the probe sought a vector before counting it
	// not found.
	GiveUpS float64 `json:"give_up_s"`
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
