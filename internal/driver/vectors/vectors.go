// Package vectors is what a vector search driver implements (Engine, a
// worker's Client) and the engine workers that insert and query through
// it; driver/tairvector and driver/elastic are its drivers. Requests are
// encoded before the timed region: an Engine renders them, a Client only
// sends them and reads the reply.
package vectors

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/serverstat"
	"github.com/tairbench/tairbench/internal/vector"
)

// IndexSpec is the index a run builds.
type IndexSpec struct {
	Dims   int
	Metric vector.Metric
	// Algorithm is HNSW or FLAT (Elasticsearch: hnsw or flat index_options).
	Algorithm      string
	M, EfConstruct int
	// Attribute names the integer attribute every vector carries ("":
	// none), which a Filter selects on.
	Attribute string
}

// Filter keeps the vectors whose integer attribute Field is below Below;
// the zero Filter keeps every vector.
type Filter struct {
	Field string
	Below int
}

// On says whether the filter selects anything.
func (f Filter) On() bool { return f.Field != "" }

// Memory is an engine's memory report in bytes (0: unknown).
type Memory struct {
	// Index is the index's own figure (TairVector's index_data_size plus
	// attribute_data_size; Elasticsearch's store size after the merge).
	Index int64 `json:"index_bytes"`
	// Used is the server's used memory (INFO used_memory; the JVM heap).
	Used int64 `json:"used_bytes"`
	// Detail names the figures.
	Detail string `json:"detail"`
}

// Engine is one vector engine under test.
type Engine interface {
	Name() string
	// Target is where the engine is.
	Target() endpoint.Target
	// Param names the search parameter swept (ef_search, num_candidates).
	Param() string
	// Check tells, before anything is written, whether the engine can run:
	// reachable, and (TairVector) with the TVS.* commands.
	Check(ctx context.Context) error
	// Create drops the index and creates it empty.
	Create(ctx context.Context, spec IndexSpec) error
	// Finish makes the loaded vectors searchable (Elasticsearch: refresh
	// and force-merge to one segment, as ann-benchmarks does).
	Finish(ctx context.Context) error
	// Live makes what is inserted from now on searchable as it comes, as
	// an application serving while it writes would have it (Elasticsearch:
	// a refresh every second; TairVector: as written already).
	Live(ctx context.Context) error
	Memory(ctx context.Context) (Memory, error)
	// EncodeInsert renders base vectors first, first+1, … (rows of dims)
	// as one request: a pipeline of TVS.HSET, one _bulk; attrs (nil:
	// none) are their values of the index's Attribute, one per row.
	EncodeInsert(dst []byte, first int, rows []float32, dims int, attr string, attrs []int32) []byte
	// EncodeSearch renders one query for the k nearest with the search
	// parameter, among the vectors f keeps.
	EncodeSearch(dst []byte, q []float32, k, param int, f Filter) []byte
	NewClient(ctx context.Context) (Client, error)
	// Sampler reads the engine's own counters (INFO, node stats).
	Sampler() serverstat.Sampler
	Close() error
}

// Client is one worker's connection.
type Client interface {
	// Insert sends an encoded insert of n vectors; it returns how many the
	// engine rejected and why; err is set when the request was lost.
	Insert(ctx context.Context, req []byte, n int) (failed int, reason string, err error)
	// Search sends an encoded search and appends the hits' base vector
	// numbers, nearest first, to ids.
	Search(ctx context.Context, req []byte, ids []uint32) ([]uint32, error)
	// YieldTo makes the waits for replies call yield at the end of each
	// of the engine's intervals and go on (engine.Yielder).
	YieldTo(yield func(time.Time) time.Time)
	Close() error
}

// Refusal is an engine's error reply (counted as a failed command, not a
// lost request).
func Refusal(format string, a ...any) error { return &engine.ReplyError{Err: fmt.Errorf(format, a...)} }

// Inserts hands batches of base vectors to insert workers: a shared
// cursor, claimed with one atomic add per request.
type Inserts struct {
	Engine Engine
	Rows   []float32
	Dims   int
	Batch  int
	// Attr and Attrs are the attribute each row carries (Attrs[i] is row
	// i's value; nil: none).
	Attr  string
	Attrs []int32
	next  atomic.Int64
}

// NewWorker implements engine.Factory.
func (f *Inserts) NewWorker(ctx context.Context, _ int, _ uint64) (engine.Worker, error) {
	c, err := f.Engine.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	return &insertWorker{f: f, c: c}, nil
}

type insertWorker struct {
	f      *Inserts
	c      Client
	req    []byte
	n      int
	errBuf []byte
}

func (w *insertWorker) Prepare() {
	total := len(w.f.Rows) / w.f.Dims
	b := int64(max(w.f.Batch, 1))
	first := int(w.f.next.Add(b) - b)
	w.n = max(min(int(b), total-first), 0)
	if w.n > 0 {
		rows := w.f.Rows[first*w.f.Dims : (first+w.n)*w.f.Dims]
		var attrs []int32
		if w.f.Attrs != nil {
			attrs = w.f.Attrs[first : first+w.n]
		}
		w.req = w.f.Engine.EncodeInsert(w.req[:0], first, rows, w.f.Dims, w.f.Attr, attrs)
	}
}

func (w *insertWorker) Exec(ctx context.Context, s *engine.Step) error {
	if w.n == 0 {
		return engine.ErrDone
	}
	_, err := insert(ctx, w.c, w.req, w.n, s, &w.errBuf)
	return err
}

// insert sends an encoded insert of n vectors and fills s with its
// outcome; all is true when every vector was taken.
func insert(ctx context.Context, c Client, req []byte, n int, s *engine.Step, errBuf *[]byte) (all bool, err error) {
	failed, reason, err := c.Insert(ctx, req, n)
	if err != nil {
		return false, err
	}
	s.Ops, s.Failed = n, failed
	if failed > 0 {
		*errBuf = append((*errBuf)[:0], reason...)
		s.Err = *errBuf
	}
	return failed == 0, nil
}

// YieldTo implements engine.Yielder.
func (w *insertWorker) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }

func (w *insertWorker) Close() error { return w.c.Close() }

// Searches hands pre-encoded queries to search workers: worker i sends
// queries i, i+W, i+2W, … and wraps around.
type Searches struct {
	Engine   Engine
	Requests [][]byte
	Workers  int
}

// NewWorker implements engine.Factory.
func (f *Searches) NewWorker(ctx context.Context, id int, _ uint64) (engine.Worker, error) {
	c, err := f.Engine.NewClient(ctx)
	if err != nil {
		return nil, err
	}
	return &searchWorker{f: f, c: c, next: id % len(f.Requests), step: max(f.Workers, 1)}, nil
}

type searchWorker struct {
	f          *Searches
	c          Client
	next, step int
	cur        []byte
	ids        []uint32
	errBuf     []byte
}

func (w *searchWorker) Prepare() {
	w.cur = w.f.Requests[w.next]
	w.next = (w.next + w.step) % len(w.f.Requests)
}

func (w *searchWorker) Exec(ctx context.Context, s *engine.Step) error {
	var err error
	w.ids, err = w.c.Search(ctx, w.cur, w.ids[:0])
	s.Ops = 1
	if err != nil {
		return s.Refused(err, &w.errBuf)
	}
	if len(w.ids) == 0 {
		s.Misses = 1
	}
	return nil
}

// YieldTo implements engine.Yielder.
func (w *searchWorker) YieldTo(yield func(time.Time) time.Time) { w.c.YieldTo(yield) }

func (w *searchWorker) Close() error { return w.c.Close() }
