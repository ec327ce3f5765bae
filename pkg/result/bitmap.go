package result

// SchemaBitmap identifies a BitmapComparison.
const SchemaBitmap = "tairbench.bitmap/v1"

// SchemaRoaringStat identifies a RoaringStat.
const SchemaRoaringStat = "tairbench.roaring-stat/v1"

// BitmapComparison is 'tairbench bitmap compare': the same sets loaded as
// TairRoaring bitmaps, Redis bitmaps and Redis sets, their memory and the
// same questions asked of each (schema SchemaBitmap).
type BitmapComparison struct {
	Header
	Config BitmapConfig `json:"config"`
	// Points are the sweep's points (one without a sweep), in order.
	Points   []BitmapPoint `json:"points"`
	Warnings []string      `json:"warnings"`
}

// BitmapConfig is how the comparison was run.
type BitmapConfig struct {
	// Targets maps each structure to the server that held it.
	Targets map[string]Target `json:"targets"`
	// Structures and Operations are what was compared, in order.
	Structures []string `json:"structures"`
	Operations []string `json:"operations"`
	// Data says where the IDs came from: "generated", "ids" (files) or
	// "from-key"; Shape is the generator's shape.
	Data  string `json:"data"`
	Shape string `json:"shape,omitempty"`
	Seed  uint64 `json:"seed"`
	// Connections and DurationS are each timed operation's closed-loop
	// run; OpenLoopRate, when above 0, adds an open-loop run at that rate.
	Connections  int     `json:"connections"`
	DurationS    float64 `json:"duration_s"`
	OpenLoopRate float64 `json:"open_loop_rate,omitempty"`
	// MaxMemory is the plan's bound in bytes.
	MaxMemory uint64 `json:"max_memory"`
}

// BitmapPoint is one point of the sweep: the keys loaded into every
// structure, what they took and how each structure answered.
type BitmapPoint struct {
	// Cardinality is the point's requested cardinality (the first key's,
	// for generated data) and Universe the IDs' bound.
	Cardinality uint64              `json:"cardinality"`
	Universe    uint64              `json:"universe"`
	Keys        []BitmapKey         `json:"keys"`
	Structures  []BitmapStructure   `json:"structures"`
	Operations  []BitmapOperation   `json:"operations"`
	Crosscheck  []BitmapCrosscheck  `json:"crosscheck"`
	Plan        []BitmapPlannedLoad `json:"plan"`
}

// BitmapKey is one set, as the client holds it.
type BitmapKey struct {
	Source      string `json:"source"`
	Cardinality uint64 `json:"cardinality"`
	Min         uint32 `json:"min"`
	Max         uint32 `json:"max"`
	// Duplicates counts IDs given more than once (files only).
	Duplicates uint64 `json:"duplicates,omitempty"`
}

// BitmapPlannedLoad is the plan printed before loading: the bytes a
// structure is expected to take (every key and the scratch key).
type BitmapPlannedLoad struct {
	Structure string `json:"structure"`
	Bytes     uint64 `json:"bytes"`
	How       string `json:"how"`
}

// BitmapStructure is what one structure took.
type BitmapStructure struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	// MemoryBytes is the sum of MEMORY USAGE over the keys; KeyBytes per key.
	MemoryBytes uint64   `json:"memory_bytes"`
	KeyBytes    []uint64 `json:"key_bytes"`
	// DataBytes is the payload alone: TR.STAT's container bytes, a
	// bitmap's STRLEN, 0 for sets (no such figure).
	DataBytes uint64 `json:"data_bytes,omitempty"`
	// UsedMemoryDelta is INFO memory's used_memory after the load less before.
	UsedMemoryDelta int64 `json:"used_memory_delta"`
	// Encodings are OBJECT ENCODING per key (Redis), empty for TairRoaring.
	Encodings []string `json:"encodings,omitempty"`
	// LoadCommands, LoadSeconds: how the keys were written.
	LoadCommands int64   `json:"load_commands"`
	LoadSeconds  float64 `json:"load_seconds"`
	// IterateSeconds is one full read of every member of the first key.
	IterateSeconds float64 `json:"iterate_seconds"`
	IterateMembers uint64  `json:"iterate_members"`
}

// BitmapOperation is one question asked of every structure.
type BitmapOperation struct {
	Name     string           `json:"name"`
	Question string           `json:"question"`
	Results  []BitmapOpResult `json:"results"`
}

// BitmapOpResult is one structure's answer to an operation: its command
// and timed runs, or why it has none.
type BitmapOpResult struct {
	Structure string `json:"structure"`
	Command   string `json:"command,omitempty"`
	// Unsupported says why the structure cannot answer the question.
	Unsupported string `json:"unsupported,omitempty"`
	// Closed is the closed-loop run; Open the open-loop run, if any.
	Closed *Run `json:"closed,omitempty"`
	Open   *Run `json:"open,omitempty"`
	// ServerUsecPerCall is the server's own time per call of the command
	// over the closed-loop run (INFO commandstats usec over calls, before
	// and after); 0 when the server does not report it.
	ServerUsecPerCall float64 `json:"server_usec_per_call,omitempty"`
}

// BitmapCrosscheck is how many probes of an operation every structure
// answered alike (and as the client's own copy of the sets expects).
type BitmapCrosscheck struct {
	Operation string `json:"operation"`
	Probes    int    `json:"probes"`
	Agreed    int    `json:"agreed"`
	// Difference names the first probe whose answers differed.
	Difference string `json:"difference,omitempty"`
}

// RoaringStat is 'tairbench roaring stat': TR.STAT memory sampling
// (schema SchemaRoaringStat).
type RoaringStat struct {
	Header
	Target Target      `json:"target"`
	Tables []StatTable `json:"tables"`
}
