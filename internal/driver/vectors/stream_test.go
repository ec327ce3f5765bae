package vectors

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/serverstat"
)

// fakeEngine answers every search with the ids in hits (the probe's target
// among them once found is true).
type fakeEngine struct{ hits []uint32 }

func (e *fakeEngine) Name() string                              { return "fake" }
func (e *fakeEngine) Target() endpoint.Target                   { return endpoint.Target{} }
func (e *fakeEngine) Param() string                             { return "ef_search" }
func (e *fakeEngine) Check(context.Context) error               { return nil }
func (e *fakeEngine) Create(context.Context, IndexSpec) error   { return nil }
func (e *fakeEngine) Finish(context.Context) error              { return nil }
func (e *fakeEngine) Live(context.Context) error                { return nil }
func (e *fakeEngine) Memory(context.Context) (Memory, error)    { return Memory{}, nil }
func (e *fakeEngine) Sampler() serverstat.Sampler               { return nil }
func (e *fakeEngine) Close() error                              { return nil }
func (e *fakeEngine) NewClient(context.Context) (Client, error) { return &fakeClient{e: e}, nil }
func (e *fakeEngine) EncodeInsert(dst []byte, first int, rows []float32, dims int, _ string, _ []int32) []byte {
	return append(dst, 'i')
}
func (e *fakeEngine) EncodeSearch(dst []byte, q []float32, k, param int, _ Filter) []byte {
	return append(dst, 's')
}

type fakeClient struct{ e *fakeEngine }

func (c *fakeClient) Insert(context.Context, []byte, int) (int, string, error) { return 0, "", nil }
func (c *fakeClient) Search(_ context.Context, _ []byte, ids []uint32) ([]uint32, error) {
	return append(ids, c.e.hits...), nil
}
func (c *fakeClient) YieldTo(func(time.Time) time.Time) {}
func (c *fakeClient) Close() error                      { return nil }

func newStream(t testing.TB, e *fakeEngine, keep int) (*Stream, []engine.Worker) {
	f := &Stream{Engine: e, Rows: make([]float32, 100*2), Dims: 2, Start: 50, Batch: 10, Requests: [][]byte{[]byte("a"), []byte("b")},
		K: 10, Param: 40, Keep: keep, ProbeTimeout: time.Minute, Tail: time.Hour}
	f.Begin()
	var ws []engine.Worker
	for id := 0; id < 3; id++ {
		w, err := f.NewWorker(context.Background(), id, 0)
		require.NoError(t, err)
		ws = append(ws, w)
	}
	return f, ws
}

// A searcher keeps a record of each search in the room given before the
// run, allocating nothing per request, and counts what does not fit.
func TestStreamSearchRecords(t *testing.T) {
	e := &fakeEngine{hits: []uint32{3, 1, 4}}
	f, ws := newStream(t, e, 5)
	search := ws[2]
	var s engine.Step
	allocs := testing.AllocsPerRun(4, func() {
		search.Prepare()
		require.NoError(t, search.Exec(context.Background(), &s))
	})
	assert.Zero(t, allocs)
	for i := 0; i < 3; i++ {
		search.Prepare()
		require.NoError(t, search.Exec(context.Background(), &s))
	}
	assert.Equal(t, OpSearch, s.Op)
	recs, dropped := f.Records()
	require.Len(t, recs, 5)
	assert.Equal(t, 3, dropped, "8 searches, room for 5")
	assert.Equal(t, []uint32{3, 1, 4}, recs[0].IDs)
	assert.Equal(t, 50, recs[0].Acked, "nothing streamed yet: the initial vectors")
	assert.Equal(t, []int{0, 1, 0, 1, 0}, []int{recs[0].Query, recs[1].Query, recs[2].Query, recs[3].Query, recs[4].Query})
}

// The inserter publishes what was acknowledged; the probe seeks the
// latest acknowledged vector until a search finds it, once, and keeps the
// delay; the inserter, out of vectors, ends the run after the tail.
func TestStreamInsertAndProbe(t *testing.T) {
	e := &fakeEngine{}
	f, ws := newStream(t, e, 10)
	insert, probe := ws[0], ws[1]
	var s engine.Step
	insert.Prepare()
	require.NoError(t, insert.Exec(context.Background(), &s))
	assert.Equal(t, 60, f.Acked())
	assert.Equal(t, OpInsert, s.Op)
	assert.Equal(t, 10, s.Ops)

	probe.Prepare()
	require.NoError(t, probe.Exec(context.Background(), &s))
	delays, _, _ := f.Visibility()
	assert.Empty(t, delays, "vector 59 not found yet")
	e.hits = []uint32{59}
	for i := 0; i < 3; i++ { // found once; not sought again until a newer insert
		probe.Prepare()
		require.NoError(t, probe.Exec(context.Background(), &s))
	}
	delays, notFound, _ := f.Visibility()
	assert.Len(t, delays, 1)
	assert.Zero(t, notFound)
	assert.Equal(t, OpProbe, s.Op)

	for i := 0; i < 4; i++ {
		insert.Prepare()
		require.NoError(t, insert.Exec(context.Background(), &s))
	}
	assert.Equal(t, 100, f.Acked())
	insert.Prepare()
	assert.ErrorIs(t, insert.Exec(context.Background(), &s), engine.ErrDone)
	f.Tail = 0
	ws[2].Prepare()
	assert.ErrorIs(t, ws[2].Exec(context.Background(), &s), engine.ErrDone, "the tail is over: the searchers stop")
}

func BenchmarkStreamSearch(b *testing.B) {
	_, ws := newStream(b, &fakeEngine{hits: []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}, b.N+1)
	var s engine.Step
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ws[2].Prepare()
		_ = ws[2].Exec(context.Background(), &s)
	}
}
