// Package result defines tairbench's versioned JSON result schema, so that
// results can be stored, re-rendered and merged later.
package result

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Schema identifies the format of a Run. It changes when a field changes meaning.
const Schema = "tairbench.run/v1"

// Run is the result of one benchmark run.
type Run struct {
	Schema     string         `json:"schema"`
	Version    string         `json:"tool_version"`
	Name       string         `json:"name,omitempty"`
	Command    string         `json:"command,omitempty"`
	Config     map[string]any `json:"config"`
	Seeds      Seeds          `json:"seeds"`
	StartedAt  time.Time      `json:"started_at"`
	DurationMS float64        `json:"duration_ms"`
	WarmupMS   float64        `json:"warmup_ms"`
	StopReason string         `json:"stop_reason"`
	Totals     Totals         `json:"totals"`
	Errors     []ErrorCount   `json:"errors"`
	Series     []Interval     `json:"series"`
	Client     Client         `json:"client"`
	Warnings   []string       `json:"warnings"`
	// Histogram is the HdrHistogram of request latencies in microseconds,
	// in the standard compressed base64 encoding (hdrhistogram-go Encode V2).
	Histogram string `json:"histogram_hdr"`
}

// Seeds records how the random generators were seeded, so a run can be replayed.
type Seeds struct {
	Base    uint64   `json:"base"`
	Workers []uint64 `json:"workers"`
}

// Totals are the counts and latency over the measured part of the run.
type Totals struct {
	// Ops counts commands (a MULTI/EXEC batch of N counts N).
	Ops int64 `json:"ops"`
	// Requests counts round trips: one command, one pipeline or one MULTI/EXEC batch.
	Requests int64 `json:"requests"`
	// OpsPerRequest is the number of commands in one request.
	OpsPerRequest int `json:"ops_per_request"`
	// Errors counts commands whose reply was an error, plus failed round trips.
	Errors int64 `json:"errors"`
	// TransportErrors counts round trips that failed on the connection.
	TransportErrors int64 `json:"transport_errors"`
	// Aborted counts MULTI/EXEC batches that were not executed (EXECABORT or a nil EXEC).
	Aborted int64 `json:"aborted"`
	// Overflow counts latencies above the histogram's range (recorded at its top).
	Overflow       int64   `json:"latency_overflow"`
	OpsPerSec      float64 `json:"ops_per_sec"`
	RequestsPerSec float64 `json:"requests_per_sec"`
	ErrorRate      float64 `json:"error_rate"`
	WarmupOps      int64   `json:"warmup_ops"`
	// AfterDeadlineOps counts commands of requests in flight at the deadline:
	// the server ran them, the measurement does not include them.
	AfterDeadlineOps int64   `json:"after_deadline_ops"`
	LatencyUnit      string  `json:"latency_unit"`
	LatencyPerOp     bool    `json:"latency_per_op"`
	Latency          Latency `json:"latency_us"`
	HistogramRangeUS int64   `json:"histogram_max_us"`
}

// Latency is a latency summary in microseconds.
type Latency struct {
	Min  float64 `json:"min"`
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

// ErrorCount is one distinct error message and how often it occurred.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// Interval is one second (or tick) of the run.
type Interval struct {
	Second    int     `json:"second"`
	Ops       int64   `json:"ops"`
	Requests  int64   `json:"requests"`
	Errors    int64   `json:"errors"`
	OpsPerSec float64 `json:"ops_per_sec"`
	MeanUS    float64 `json:"mean_us"`
	P50US     float64 `json:"p50_us"`
	P99US     float64 `json:"p99_us"`
	MaxUS     float64 `json:"max_us"`
}

// Client describes the load generator's own resource use.
type Client struct {
	CPUUserMS   float64 `json:"cpu_user_ms"`
	CPUSysMS    float64 `json:"cpu_sys_ms"`
	CPUPerOpUS  float64 `json:"cpu_per_op_us"`
	CPUUtil     float64 `json:"cpu_util"`
	Cores       int     `json:"cores"`
	Saturated   bool    `json:"saturated"`
	InProcessSv bool    `json:"in_process_server"`
}

// Encode writes r as indented JSON.
func Encode(w io.Writer, r *Run) error { return EncodeJSON(w, r) }

// EncodeJSON writes any result document (a Run, a suite, a comparison) as
// indented JSON without HTML escaping.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("result: encode: %w", err)
	}
	return nil
}

// Decode reads a Run and checks its schema.
func Decode(rd io.Reader) (*Run, error) {
	var r Run
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("result: decode: %w", err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("result: schema %q, want %q", r.Schema, Schema)
	}
	return &r, nil
}
