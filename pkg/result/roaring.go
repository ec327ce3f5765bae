package result

// RoaringSuite is the TairRoaring whitepaper suite's result (schema SchemaRoaring).
type RoaringSuite struct {
	Header
	Config RoaringConfig `json:"config"`
	// Loads are the data sets loaded before the cases that read them.
	Loads    []RoaringLoad       `json:"loads"`
	Cases    []RoaringCaseResult `json:"cases"`
	Stat     []StatTable         `json:"stat,omitempty"`
	Warnings []string            `json:"warnings"`
}

// RoaringConfig is how the suite was run.
type RoaringConfig struct {
	Target        Target  `json:"target"`
	CaseDurationS float64 `json:"case_duration_s"`
	// Seed is the suite's base seed; each case's seed derives from it and the case ID.
	Seed  uint64 `json:"seed"`
	Flush bool   `json:"flush"`
	// SLO, when set, made each case a capacity search for it (--slo).
	SLO string `json:"slo,omitempty"`
	// SetOpData is the set operations' data shape ("random", "runs").
	SetOpData string `json:"setop_data,omitempty"`
}

// RoaringLoad is how one data set was loaded.
type RoaringLoad struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Template    string  `json:"template"`
	Commands    int64   `json:"commands"`
	Seconds     float64 `json:"seconds"`
	PerSecond   float64 `json:"commands_per_sec"`
	Errors      int64   `json:"errors"`
}

// Reference is the whitepaper's figure for a case (16 GB standard Tair
// instance; cluster rows: 2 shards).
type Reference struct {
	// Rate is QPS, or bits per second for batch cases.
	Rate      float64 `json:"rate"`
	LatencyMS float64 `json:"latency_ms"`
	// Table names the whitepaper table the figure comes from.
	Table string `json:"table"`
}

// RoaringCase is one scenario of the suite.
type RoaringCase struct {
	ID    string `json:"id"`
	Group string `json:"group"`
	// Command is the command name shown in the table.
	Command string `json:"command"`
	// Template is the command template; R1, R2 and R3 are its __RAND__, __RAND2__ and __RAND3__ ranges.
	Template string `json:"template"`
	R1       uint64 `json:"r"`
	R2       uint64 `json:"r2"`
	R3       uint64 `json:"r3,omitempty"`
	Parallel int    `json:"parallel"`
	Batching int    `json:"batching,omitempty"`
	Keys     string `json:"keys"`
	Items    string `json:"items"`
	ArgRange string `json:"arg_range"`
	// Load names the data set the case reads ("" when it needs none).
	Load string    `json:"load,omitempty"`
	Ref  Reference `json:"reference"`
	// Cluster routes through the cluster client.
	Cluster bool `json:"cluster,omitempty"`
	// Note explains a deviation from the whitepaper's printed command.
	Note string `json:"note,omitempty"`
}

// RoaringCaseResult is one case's outcome.
type RoaringCaseResult struct {
	Case RoaringCase `json:"case"`
	// Seed is the case's base seed (its workers' seeds are in Run.Seeds).
	Seed uint64 `json:"seed"`
	// Rate is the measured QPS (bits per second for batch cases).
	Rate      float64 `json:"rate"`
	LatencyMS float64 `json:"latency_ms"`
	P99MS     float64 `json:"p99_ms"`
	Ratio     float64 `json:"ratio_to_reference"`
	// DataDiffers, when set, says why the case's data is known not to be
	// the whitepaper's: Ratio is then 0 and the tables print "data differs".
	DataDiffers string `json:"data_differs,omitempty"`
	Run         *Run   `json:"run"`
	// Capacity is the case's capacity search (with --slo): Rate is then the
	// highest rate that held the SLO, in the case's unit, and Run the run
	// that showed it.
	Capacity *CapacitySearch `json:"capacity,omitempty"`
}

// StatTable is one TR.STAT sampling distribution's rows.
type StatTable struct {
	Distribution string    `json:"distribution"`
	Description  string    `json:"description"`
	Rows         []StatRow `json:"rows"`
	// Error is why the sampling stopped early ("" when it completed).
	Error string `json:"error,omitempty"`
}

// StatRow is one step of a TR.STAT sampling distribution.
type StatRow struct {
	Cardinality uint64 `json:"cardinality"`
	RunC        uint64 `json:"run_containers"`
	ArrayC      uint64 `json:"array_containers"`
	BitsetC     uint64 `json:"bitset_containers"`
	// HeapBytes is the container memory TR.STAT reports (the whitepaper's "heap mem").
	HeapBytes   uint64  `json:"heap_bytes"`
	BytesPerBit float64 `json:"bytes_per_bit"`
	// Predicted is what the container rules give for the bits the client set:
	// per 2^16 chunk, 2 bytes a value up to 4096 values, else 8192; with
	// TR.OPTIMIZE, 2 + 4 × runs when that is smaller.
	Predicted uint64  `json:"predicted_bytes"`
	DiffPct   float64 `json:"diff_pct"`
	// UsedMemoryDelta is INFO memory's used_memory minus its value before
	// the distribution's first step.
	UsedMemoryDelta int64   `json:"used_memory_delta"`
	Seconds         float64 `json:"seconds"`
}
