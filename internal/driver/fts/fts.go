// Package fts is what a full-text search driver implements (Engine, a
// worker's Client) and the engine workers that write and query through
// it; driver/tairsearch and driver/elastic are its drivers. The whitepaper's
// schema and document encoding live here, below every driver.
package fts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/tairbench/tairbench/internal/serverstat"

	"github.com/tairbench/tairbench/internal/endpoint"

	"github.com/tairbench/tairbench/internal/wiki"
)

// Schema is the whitepaper's index: id (keyword, not indexed), url and
// title (text, not indexed), abstract (text, standard analyzer).
const Schema = `{"mappings":{"properties":{"id":{"type":"keyword","index":false},"url":{"type":"text","index":false},` +
	`"title":{"type":"text","index":false},"abstract":{"type":"text","analyzer":"standard"}}}}`

// Options configure an engine.
type Options struct {
	// Target is where the engine is: TairSearch's RESP target (TLS, ACL
	// login, database, in-process), or Elasticsearch's URL in Target.Addr
	// with its basic-auth login in Target.Auth ("user:password").
	Target endpoint.Target
	Index  string
	// RefreshInterval is Elasticsearch's refresh interval ("1s"); Realtime refreshes on every write.
	RefreshInterval string
	Realtime        bool
	// Connections is the number of concurrent connections the client should allow.
	Connections int
	// Mapping, when set, is the body that creates the index on this engine
	// (a track's mapping); nil means Schema.
	Mapping []byte
}

// IndexBody is the body that creates the index: o.Mapping, or Schema.
func (o Options) IndexBody() []byte {
	if o.Mapping != nil {
		return o.Mapping
	}
	return []byte(Schema)
}

// Hits is what parity compares: a query's total hits, its first
// aggregation's buckets and the IDs of the hits it returned.
type Hits struct {
	Total   int64
	Buckets []Bucket
	IDs     []string
}

// Bucket is one terms-aggregation bucket.
type Bucket struct {
	Key   string
	Count int64
}

// Memory is an engine's memory report (bytes; zero when unknown).
type Memory struct {
	// Used is TairSearch's INFO used_memory, or Elasticsearch's JVM heap used.
	Used int64
	// Store is Elasticsearch's index store size on disk.
	Store int64
	// Detail names the figures.
	Detail string
}

// Engine is one search engine under test.
type Engine interface {
	Name() string
	// Target is where the engine is.
	Target() endpoint.Target
	// Check tells, before anything is written, whether the engine can run
	// the workload: reachable, and (TairSearch) with the TFT.* commands.
	Check(ctx context.Context) error
	// Reset drops and creates the index with Schema.
	Reset(ctx context.Context) error
	// Ensure creates the index with Schema when it does not exist.
	Ensure(ctx context.Context) error
	// NewClient returns a client for one worker.
	NewClient(ctx context.Context) (Client, error)
	// Refresh makes written documents searchable.
	Refresh(ctx context.Context) error
	// Count returns the number of searchable documents.
	Count(ctx context.Context) (int64, error)
	// Probe runs a query once and returns hits for parity.
	Probe(ctx context.Context, query []byte) (Hits, error)
	Memory(ctx context.Context) (Memory, error)
	// Sampler reads the engine's own counters for the run's server timeline.
	Sampler() serverstat.Sampler
	Close() error
}

// TokenAnalyzer is an engine that can show how it cuts text for a field
// of the index (parity names analyzer differences with an example).
type TokenAnalyzer interface {
	// Tokens returns the terms the field's analyzer makes of text;
	// analyzer is the field's analyzer name where the engine needs it.
	Tokens(ctx context.Context, field, analyzer, text string) ([]string, error)
}

// ParseTokens reads an analyzer's reply, {"tokens":[{"token":…},…]}, the
// shape of both TFT.ANALYZER and Elasticsearch's _analyze.
func ParseTokens(b []byte) ([]string, error) {
	var r struct {
		Tokens []struct {
			Token string `json:"token"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("analyzer reply: %w", err)
	}
	out := make([]string, len(r.Tokens))
	for i, t := range r.Tokens {
		out[i] = t.Token
	}
	return out, nil
}

// Client is one worker's connection.
type Client interface {
	// Write indexes encoded documents: one request per document when bulk is
	// false, one bulk request otherwise. It returns how many documents the
	// engine rejected and its message for the first; err is set when a
	// request was lost (the engine did not answer).
	Write(ctx context.Context, docs []Encoded, bulk bool) (failed int, reason string, err error)
	// Search runs a query and returns the reply's total hits; cache
	// selects the engine's result cache.
	Search(ctx context.Context, query []byte, cache bool) (int64, error)
	// YieldTo makes the waits for replies call yield at the end of each
	// of the engine's intervals and go on (engine.Yielder).
	YieldTo(yield func(time.Time) time.Time)
	Close() error
}

// Encoded is a document ready to send: its id and its JSON in the schema's fields.
type Encoded struct {
	ID   string
	JSON []byte
}

// Encode renders a document (outside the timed request).
func Encode(d wiki.Doc) Encoded {
	b, _ := json.Marshal(struct {
		ID       string `json:"id"`
		URL      string `json:"url"`
		Title    string `json:"title"`
		Abstract string `json:"abstract"`
	}{strconv.FormatInt(d.ID, 10), d.URL, d.Title, d.Abstract})
	return Encoded{ID: strconv.FormatInt(d.ID, 10), JSON: b}
}

// EncodeAll encodes documents.
func EncodeAll(docs []wiki.Doc) []Encoded {
	out := make([]Encoded, len(docs))
	for i, d := range docs {
		out[i] = Encode(d)
	}
	return out
}

// TotalHits finds hits.total.value in a search reply without parsing it:
// Elasticsearch writes "total":{"value":N,…} first in "hits", TairSearch
// "total":{"relation":…,"value":N} last in the reply. It returns -1 when
// the reply has neither.
func TotalHits(body []byte) int64 {
	var rest []byte
	if i := bytes.LastIndex(body, []byte(`"total":{"relation"`)); i >= 0 {
		rest = body[i:]
	} else if i := bytes.Index(body, []byte(`"total":{"value"`)); i >= 0 {
		rest = body[i:]
	} else {
		return -1
	}
	j := bytes.Index(rest, []byte(`"value":`))
	if k := bytes.IndexByte(rest, '}'); j < 0 || k < j {
		return -1
	}
	var n int64
	digits := 0
	for _, c := range rest[j+len(`"value":`):] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int64(c-'0')
		digits++
	}
	if digits == 0 {
		return -1
	}
	return n
}

// ParseHits reads total hits and the first aggregation's buckets from a
// search reply (TairSearch and Elasticsearch share this shape).
func ParseHits(body []byte) (Hits, error) {
	var r struct {
		Hits struct {
			Total struct {
				Value int64 `json:"value"`
			} `json:"total"`
			Hits []struct {
				ID string `json:"_id"`
			} `json:"hits"`
		} `json:"hits"`
		Aggregations map[string]struct {
			Buckets []struct {
				Key      any   `json:"key"`
				DocCount int64 `json:"doc_count"`
			} `json:"buckets"`
		} `json:"aggregations"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return Hits{}, fmt.Errorf("parse search reply: %w", err)
	}
	h := Hits{Total: r.Hits.Total.Value}
	for _, x := range r.Hits.Hits {
		h.IDs = append(h.IDs, x.ID)
	}
	names := make([]string, 0, len(r.Aggregations))
	for n := range r.Aggregations {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, b := range r.Aggregations[n].Buckets {
			h.Buckets = append(h.Buckets, Bucket{Key: fmt.Sprint(b.Key), Count: b.DocCount})
		}
	}
	return h, nil
}
