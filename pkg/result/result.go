// Package result defines tairbench's versioned JSON result documents, so that
// results can be stored, read back, re-rendered and merged by any Go program
// with this one import:
//
//   - [Run] (schema [SchemaRun], "tairbench.run/v2"): one benchmark run.
//   - [RoaringSuite] (schema [SchemaRoaring], "tairbench.roaring/v2"): the
//     TairRoaring whitepaper suite, a Run per case.
//   - [SearchComparison] (schema [SchemaSearch], "tairbench.search/v2"):
//     TairSearch against Elasticsearch, a Run per phase and engine.
//   - [CapacitySearch] (schema [SchemaCapacity], "tairbench.capacity/v1"):
//     the highest rate that met a latency target (--slo), a Run per step.
//   - [Compat] (schema [SchemaCompat], "tairbench.compat/v1"): a peer
//     tool's command line (redis-benchmark, memtier, resp-benchmark,
//     YCSB), a Run per test.
//   - [WhitepaperSuite] (schema [SchemaWhitepaper], "tairbench.whitepaper/v1"):
//     a whitepaper table run again, published and measured figures per case.
//   - [BitmapComparison] (schema [SchemaBitmap], "tairbench.bitmap/v1"): the
//     same sets as TairRoaring, Redis bitmaps and Redis sets, memory and a
//     Run per structure and operation.
//   - [RoaringStat] (schema [SchemaRoaringStat], "tairbench.roaring-stat/v1"):
//     TR.STAT memory sampling tables.
//   - [VectorBench] (schema [SchemaVector], "tairbench.vector/v1"): vector
//     search recall and QPS per search parameter, per engine.
//   - [TrackRun] (schema [SchemaTrack], "tairbench.track/v1"): a search
//     track on TairSearch and/or Elasticsearch, parity per template and a
//     Run per task and engine.
//   - [Translation] (schema [SchemaTranslation], "tairbench.translation/v1"):
//     a trace's bitmap traffic on Redis bitmaps and on TairRoaring, a Run
//     each, memory and the answers' agreement.
//
// Every document starts with the same [Header]; [Read] decodes any of them.
package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// Schemas. A schema's version changes when a field changes meaning or shape.
const (
	// SchemaRun identifies a Run.
	SchemaRun = "tairbench.run/v2"
	// SchemaRoaring identifies a RoaringSuite.
	SchemaRoaring = "tairbench.roaring/v2"
	// SchemaSearch identifies a SearchComparison.
	SchemaSearch = "tairbench.search/v2"
)

// Stop reasons: why a run ended.
const (
	// StopDuration: the run's duration elapsed.
	StopDuration = "duration"
	// StopCount: the requested number of commands completed.
	StopCount = "count"
	// StopExhausted: the input (a document file) ran out.
	StopExhausted = "input-exhausted"
	// StopInterrupted: the run was interrupted (Ctrl-C); the result is partial.
	StopInterrupted = "interrupted"
	// StopMaxErrors: the error budget (--max-errors) was spent.
	StopMaxErrors = "max-errors"
	// StopThreshold: a threshold failed during the run (--abort-on-fail).
	StopThreshold = "threshold"
	// StopUnreachable: no connection to the target was usable for the run's
	// give-up time.
	StopUnreachable = "unreachable"
)

// Header opens every result document.
type Header struct {
	// Schema is one of SchemaRun, SchemaRoaring, SchemaSearch.
	Schema string `json:"schema"`
	// Version is the version of the tairbench that wrote the document.
	Version string `json:"tool_version"`
	// StartedAt is when the run or suite started (UTC).
	StartedAt time.Time `json:"started_at"`
}

// NewHeader returns a header for schema, written by tool version version, starting now.
func NewHeader(schema, version string) Header {
	return Header{Schema: schema, Version: version, StartedAt: time.Now().UTC()}
}

// Head returns the header; every document has it.
func (h Header) Head() Header { return h }

// Document is any result document: a *Run, *RoaringSuite or *SearchComparison.
type Document interface{ Head() Header }

// Target describes the server a run measured, without secrets.
type Target struct {
	Addr string `json:"addr"`
	// User is the ACL user name, when one was given.
	User string `json:"user,omitempty"`
	// Auth is "***" when a password was given ("user:***" for Tair's -a user:password).
	Auth      string `json:"auth,omitempty"`
	DB        int    `json:"db"`
	RESP      int    `json:"resp"`
	TimeoutMS int64  `json:"timeout_ms"`
	TLS       bool   `json:"tls"`
	Cluster   bool   `json:"cluster"`
	// Sentinels and MasterName are set when the target was the primary
	// the Sentinels named (Addr: the one they named first), asked again
	// at each connection made after a loss.
	Sentinels  []string `json:"sentinels,omitempty"`
	MasterName string   `json:"master_name,omitempty"`
	// InProcess is set when the server ran inside the benchmarking process
	// (tairbench's embedded server): client and server shared its cores.
	InProcess bool `json:"in_process"`
	// Server is who the target said it is (INFO server and modules); nil
	// when it was not asked or did not answer.
	Server *ServerIdentity `json:"server,omitempty"`
}

// ServerIdentity is who a target said it is.
type ServerIdentity struct {
	// Name is INFO's server_name ("tairbench-embedded" for tairbench's
	// embedded server), or "redis" when it gives none; Version its
	// redis_version. For an engine reached over HTTP they are its product
	// ("elasticsearch") and version number (GET /).
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Build is the server's build, where it says (Elasticsearch's build
	// hash, shortened).
	Build   string         `json:"build,omitempty"`
	Modules []ServerModule `json:"modules,omitempty"`
	// Embedded is set for tairbench's embedded server, in this process or
	// over the network: not Tair.
	Embedded bool `json:"embedded"`
}

// String is how outputs name the server: "redis 7.0.15",
// "elasticsearch 8.19.21, build 1a2b3c4d5e6f".
func (id *ServerIdentity) String() string {
	s := id.Name
	if id.Version != "" {
		s += " " + id.Version
	}
	if id.Build != "" {
		s += ", build " + id.Build
	}
	return s
}

// ServerModule is one module a target listed.
type ServerModule struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// NotTair says whether the target is known not to be Tair: tairbench's
// embedded server (in this process or over the network).
func (t *Target) NotTair() bool {
	return t != nil && (t.InProcess || t.Server != nil && t.Server.Embedded)
}

// EncodeJSON writes a result document as indented JSON without HTML escaping.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("result: encode: %w", err)
	}
	return nil
}

// ReadFile reads any result document from the file at path.
func ReadFile(path string) (Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	defer f.Close()
	return Read(f)
}

// Read decodes any result document, chosen by its schema.
func Read(rd io.Reader) (Document, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("result: read: %w", err)
	}
	var h Header
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, fmt.Errorf("result: a JSON array, not a tairbench result document (roaring stat wrote bare arrays "+
			"before %s: run it again)", SchemaRoaringStat)
	}
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("result: not a tairbench result document: %w", err)
	}
	var doc Document
	switch h.Schema {
	case SchemaRun:
		doc = &Run{}
	case SchemaRoaring:
		doc = &RoaringSuite{}
	case SchemaSearch:
		doc = &SearchComparison{}
	case SchemaCapacity:
		doc = &CapacitySearch{}
	case SchemaCompat:
		doc = &Compat{}
	case SchemaWhitepaper:
		doc = &WhitepaperSuite{}
	case SchemaBitmap:
		doc = &BitmapComparison{}
	case SchemaRoaringStat:
		doc = &RoaringStat{}
	case SchemaTrack:
		doc = &TrackRun{}
	case SchemaVector:
		doc = &VectorBench{}
	case SchemaTranslation:
		doc = &Translation{}
	default:
		if h.Schema == "" {
			return nil, fmt.Errorf("result: no \"schema\" field: not a tairbench result document")
		}
		return nil, fmt.Errorf("result: unknown schema %q (this version reads %s, %s, %s, %s, %s, %s, %s, %s, %s, %s and %s)", h.Schema,
			SchemaRun, SchemaRoaring, SchemaSearch, SchemaCapacity, SchemaCompat, SchemaWhitepaper, SchemaBitmap, SchemaRoaringStat,
			SchemaVector, SchemaTrack, SchemaTranslation)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(doc); err != nil {
		return nil, fmt.Errorf("result: decode %s: %w", h.Schema, err)
	}
	return doc, nil
}

// DecodeRun reads a Run and checks its schema.
func DecodeRun(rd io.Reader) (*Run, error) {
	doc, err := Read(rd)
	if err != nil {
		return nil, err
	}
	r, ok := doc.(*Run)
	if !ok {
		return nil, fmt.Errorf("result: schema %q, want %q", doc.Head().Schema, SchemaRun)
	}
	return r, nil
}
