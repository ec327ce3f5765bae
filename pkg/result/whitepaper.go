package result

// SchemaWhitepaper identifies a WhitepaperSuite.
const SchemaWhitepaper = "tairbench.whitepaper/v1"

// WhitepaperSuite is one of the whitepaper's tables run again: its cases,
// each with the published figures and the measured ones.
type WhitepaperSuite struct {
	Header
	// Suite is "enhanced" (redis-benchmark GET and SET) or "cluster" (memtier).
	Suite string `json:"suite"`
	// Source names the whitepaper table reproduced.
	Source string `json:"source"`
	// CommandLine is the peer tool's command line as run (password hidden).
	CommandLine string `json:"command_line"`
	// Scale says how the run differs from the published one (fewer
	// requests, a shorter test time), or is empty.
	Scale  string           `json:"scale,omitempty"`
	Target *Target          `json:"target,omitempty"`
	Cases  []WhitepaperCase `json:"cases"`
	// References are published QPS figures the measured ones are set
	// against (the cluster table's instance types).
	References []WhitepaperReference `json:"references,omitempty"`
	// SLO, when set, made each measured case a capacity search for it.
	SLO string `json:"slo,omitempty"`
}

// WhitepaperCase is one row of a whitepaper table.
type WhitepaperCase struct {
	// Section names the table the row belongs to ("workload C, hash").
	Section   string            `json:"section,omitempty"`
	Name      string            `json:"name"`
	Command   string            `json:"command"`
	Reference WhitepaperFigures `json:"reference"`
	Measured  WhitepaperFigures `json:"measured"`
	// Ratio is the measured QPS over the published one (0 without one).
	Ratio float64 `json:"ratio"`
	Run   *Run    `json:"run"`
	// Capacity is the case's capacity search (with --slo): Measured.QPS is
	// then the highest rate that held the SLO and Run the run that showed it.
	Capacity *CapacitySearch `json:"capacity,omitempty"`
}

// WhitepaperFigures are a QPS, a cumulative latency distribution and
// per-operation latencies (what each table gives).
type WhitepaperFigures struct {
	QPS        float64          `json:"qps"`
	Cumulative []CumulativeStep `json:"cumulative,omitempty"`
	Latency    []OpLatency      `json:"latency,omitempty"`
}

// OpLatency is one operation's average and 99th percentile latency.
type OpLatency struct {
	Op    string  `json:"op"`
	AvgUS float64 `json:"avg_us"`
	P99US float64 `json:"p99_us"`
}

// CumulativeStep is the share of requests at or below a latency.
type CumulativeStep struct {
	LEms    float64 `json:"le_ms"`
	Percent float64 `json:"percent"`
}

// WhitepaperReference is one published QPS figure.
type WhitepaperReference struct {
	Name string  `json:"name"`
	QPS  float64 `json:"qps"`
	Note string  `json:"note,omitempty"`
}
