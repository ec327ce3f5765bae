package stats

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"testing"
	"time"

	"github.com/tairbench/tairbench/pkg/result"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMergeAcrossWorkersAndIntervals(t *testing.T) {
	// Recorders see completion times in order; these are just ahead of now.
	start := time.Now()
	a := NewAggregator(start, time.Second)
	r1, r2 := a.NewRecorder(), a.NewRecorder()
	// Worker 1: 100 requests of 1 ms in second 0; worker 2: 100 of 3 ms in second 1.
	for i := 0; i < 100; i++ {
		r1.Record(start.Add(500*time.Millisecond), time.Millisecond, 1, 0)
		r2.Record(start.Add(1500*time.Millisecond), 3*time.Millisecond, 2, 0)
	}
	r1.Flush()
	r2.Flush()
	s := a.Snapshot(2 * time.Second)
	assert.Equal(t, int64(300), s.Totals.Ops)
	assert.Equal(t, int64(200), s.Totals.Requests)
	assert.InDelta(t, 2000, s.Totals.Latency.Mean, 1)
	assert.InDelta(t, 1000, s.Totals.Latency.P50, 2)
	assert.InDelta(t, 3000, s.Totals.Latency.P99, 5)
	assert.InDelta(t, 150, s.Totals.OpsPerSec, 1e-9)
	require.Len(t, s.Series, 2)
	assert.Equal(t, int64(100), s.Series[0].Ops)
	assert.Equal(t, int64(200), s.Series[1].Ops)
	assert.InDelta(t, 1000, *s.Series[0].P99US, 2)
	assert.InDelta(t, 3000, *s.Series[1].P50US, 5)
	assert.Equal(t, int64(200), s.Histogram.TotalCount())
}

func TestOverflowCountedNotDropped(t *testing.T) {
	start := time.Now().Add(-time.Second)
	a := NewAggregator(start, time.Second)
	r := a.NewRecorder()
	r.Record(start.Add(time.Millisecond), 2*time.Minute, 1, 0)
	r.Record(start.Add(time.Millisecond), time.Millisecond, 1, 0)
	r.Flush()
	s := a.Snapshot(time.Second)
	assert.Equal(t, int64(1), s.Totals.Overflow)
	assert.Equal(t, int64(2), s.Histogram.TotalCount())
	assert.InDelta(t, float64(HighestUS), s.Totals.Latency.Max, float64(HighestUS)/500)
	assert.InDelta(t, 60_000_500, s.Totals.Latency.Mean, 1, "the mean keeps the exact value")
}

func TestWarmupExcluded(t *testing.T) {
	start := time.Now().Add(time.Hour) // measurement has not begun
	a := NewAggregator(start, time.Second)
	r := a.NewRecorder()
	r.Record(time.Now(), time.Millisecond, 5, 0)
	r.Error(time.Now(), Reply, []byte("ERR x"), 1)
	r.Flush()
	s := a.Snapshot(time.Second)
	assert.Zero(t, s.Totals.Ops)
	assert.Equal(t, int64(5), s.Totals.WarmupOps)
	assert.Empty(t, s.Errors)
}

func TestErrorsGroupedAndBounded(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	r := a.NewRecorder()
	at := start.Add(100 * time.Millisecond)
	for i := 0; i < 3; i++ {
		r.Record(at, time.Millisecond, 10, 10) // a MULTI/EXEC batch of 10 whose commands all failed
		r.Error(at, Reply, []byte("ERR a"), 10)
	}
	r.Error(at, Lost, []byte("read: timeout"), 10)
	r.Error(at, Connect, []byte("cannot connect to 127.0.0.1:1: connection refused"), 0)
	for i := 0; i < 100; i++ {
		r.Record(at, time.Millisecond, 1, 1)
		r.Error(at, Reply, []byte(fmt.Sprintf("ERR distinct 'x%d'", i)), 1)
	}
	r.flushAt(at)
	s := a.Snapshot(time.Second)
	counts := map[string]result.ErrorCount{}
	for _, e := range s.Errors {
		counts[e.Kind+" "+e.Message] = e
	}
	assert.Equal(t, int64(30), counts["reply ERR a"].Count, "errors count commands, as the totals do")
	assert.Equal(t, int64(10), counts["connection read: timeout"].Count)
	connect := counts["connect cannot connect to N:N: connection refused"]
	assert.Equal(t, int64(1), connect.Count)
	assert.Equal(t, "cannot connect to 127.0.0.1:1: connection refused", connect.Example)
	assert.Equal(t, int64(100), counts["reply ERR distinct '…'"].Count, "quoted arguments are one cause")
	assert.Equal(t, "ERR distinct 'x0'", counts["reply ERR distinct '…'"].Example)
	assert.Equal(t, int64(1), s.Totals.TransportErrors)
	assert.Equal(t, int64(10), s.Totals.LostOps)
	assert.Equal(t, int64(1), s.Totals.ConnectFailures)
	var total int64
	for _, e := range s.Errors {
		if e.Kind != "connect" {
			total += e.Count
		}
	}
	assert.Equal(t, s.Totals.Errors, total, "the table and the totals agree")
	require.Len(t, s.Series, 1)
	assert.Equal(t, s.Totals.Errors, s.Series[0].Errors, "errors land in the second they happened")
}

func TestBoundedGroups(t *testing.T) {
	a := NewAggregator(time.Now().Add(-time.Second), time.Second)
	r := a.NewRecorder()
	for i := 0; i < 100; i++ {
		r.Error(time.Now(), Reply, []byte(fmt.Sprintf("ERR distinct%d", i)), 1) // not normalized: part of a word
	}
	r.Flush()
	s := a.Snapshot(time.Second)
	assert.LessOrEqual(t, len(s.Errors), maxDistinctErrors+1)
	var total int64
	for _, e := range s.Errors {
		total += e.Count
	}
	assert.Equal(t, int64(100), total, "messages past the bound are counted as other")
}

func TestEverySecondHasARow(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	r := a.NewRecorder()
	r.Record(start.Add(500*time.Millisecond), time.Millisecond, 1, 0)
	r.Error(start.Add(2500*time.Millisecond), Connect, []byte("refused"), 0)
	r.Record(start.Add(3500*time.Millisecond), time.Millisecond, 1, 0)
	r.flushAt(start.Add(3600 * time.Millisecond))
	s := a.Snapshot(5 * time.Second)
	require.Len(t, s.Series, 5)
	assert.Nil(t, s.Series[1].MeanUS, "no reply: no latency, not 0")
	assert.Equal(t, int64(1), s.Series[2].ConnectFailures)
	assert.NotNil(t, s.Series[3].P99US)
	assert.Equal(t, []int{1, 2, 4}, s.Silent)
}

// TestLastIntervalIsARateOverItsPart: a run that ended 0.25 s into its
// third second did 50 commands in that quarter second, 200/s, not 50/s;
// the interval says how long it was measured.
func TestLastIntervalIsARateOverItsPart(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	r := a.NewRecorder()
	for _, at := range []struct {
		ms, n int
	}{{500, 100}, {1500, 100}, {2100, 50}} { // in order, as a recorder sees them
		for range at.n {
			r.Record(start.Add(time.Duration(at.ms)*time.Millisecond), time.Millisecond, 1, 0)
		}
	}
	r.flushAt(start.Add(2200 * time.Millisecond))
	s := a.Snapshot(2250 * time.Millisecond)
	require.Len(t, s.Series, 3)
	for i, want := range []struct{ rate, span float64 }{{100, 0}, {100, 0}, {200, 0.25}} {
		assert.InDelta(t, want.rate, s.Series[i].OpsPerSec, 1e-9, "second %d", i)
		assert.InDelta(t, want.span, s.Series[i].SpanS, 1e-9, "second %d", i)
	}
	assert.InDelta(t, 250/2.25, s.Totals.OpsPerSec, 1e-9)

	whole := a.Snapshot(3 * time.Second)
	assert.Zero(t, whole.Series[2].SpanS, "a whole second has no span")
	assert.InDelta(t, 50, whole.Series[2].OpsPerSec, 1e-9)
}

func BenchmarkRecord(b *testing.B) {
	a := NewAggregator(time.Now(), time.Second)
	r := a.NewRecorder()
	b.ReportAllocs()
	now := time.Now()
	for i := 0; i < b.N; i++ {
		r.Record(now, 150*time.Microsecond, 1, 0)
	}
}

func TestOperationsSplitTheRun(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	a.SetOperations([]string{"SET", "GET"})
	r1, r2 := a.NewRecorder(), a.NewRecorder()
	rec := func(r *Recorder, at time.Duration, op int, lat time.Duration, misses int) {
		r.Record(start.Add(at), lat, 1, 0)
		r.RecordOp(op, lat, 0, 1, 0, misses)
	}
	for range 100 { // completion times in order, as a worker sees them
		rec(r1, 500*time.Millisecond, 0, time.Millisecond, 0)   // SET, second 0
		rec(r2, 500*time.Millisecond, 1, 2*time.Millisecond, 1) // GET miss, second 0
	}
	for range 100 {
		rec(r1, 1500*time.Millisecond, 1, 4*time.Millisecond, 0) // GET hit, second 1
	}
	r2.Error(start.Add(1600*time.Millisecond), Lost, []byte("EOF"), 1)
	r2.LostOp(start.Add(1600*time.Millisecond), 1, 1)
	r1.Flush()
	r2.Flush()
	s := a.Snapshot(2 * time.Second)
	require.Len(t, s.Operations, 2)
	set, get := s.Operations[0], s.Operations[1]
	assert.Equal(t, "SET", set.Name)
	assert.Equal(t, int64(100), set.Ops)
	assert.Equal(t, int64(200), get.Ops)
	assert.Equal(t, int64(100), get.Misses)
	assert.Equal(t, int64(100), s.Totals.Misses)
	assert.Equal(t, int64(300), s.Histogram.TotalCount(), "each request once in the run's histogram")
	assert.Equal(t, int64(1), get.Errors, "a lost request counts against its operation")
	assert.InDelta(t, 1000, set.Latency.P99, 2)
	assert.InDelta(t, 4000, get.Latency.P99, 5)
	assert.InDelta(t, 100, get.OpsPerSec, 1e-9)
	require.Len(t, s.OpHistograms, 2, "the raw histograms, for the run layer to encode")
	assert.Equal(t, int64(100), s.OpHistograms[0].TotalCount())
	require.Len(t, s.Series, 2)
	for i, want := range [][2]int64{{100, 100}, {0, 100}} {
		ops := s.Series[i].Operations
		require.Len(t, ops, 2)
		assert.Equal(t, want[0], ops[0].Ops, "second %d SET", i)
		assert.Equal(t, want[1], ops[1].Ops, "second %d GET", i)
	}
	assert.Nil(t, s.Series[1].Operations[0].P99US, "no SET in second 1: no latency, not 0")
	assert.InDelta(t, 2000, *s.Series[0].Operations[1].P99US, 3)
}

func TestOneOperationIsNotSplit(t *testing.T) {
	a := NewAggregator(time.Now(), time.Second)
	a.SetOperations([]string{"GET"})
	r := a.NewRecorder()
	r.Record(time.Now(), time.Millisecond, 1, 0)
	r.RecordOp(0, time.Millisecond, 0, 1, 0, 1)
	r.Flush()
	s := a.Snapshot(time.Second)
	assert.Nil(t, s.Operations)
	assert.Equal(t, int64(1), s.Totals.Misses)
	assert.Nil(t, s.Series[0].Operations)
}

// TestRecordersAreSmall: a recorder buffers latencies instead of holding a
// histogram, so 10,000 connections' recorders take about 10 MB.
func TestRecordersAreSmall(t *testing.T) {
	a := NewAggregator(time.Now(), time.Second)
	a.EnableCorrected()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	recs := make([]*Recorder, 10000)
	for i := range recs {
		recs[i] = a.NewRecorder()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(recs))
	assert.Less(t, per, 1200.0, "bytes per recorder (64 buffered latencies: 512 bytes)")
	runtime.KeepAlive(recs)
}

// TestBufferedSamplesLandInTheirInterval: latencies buffered across an
// interval's end are counted in the interval they completed in, and every
// one reaches the totals.
func TestBufferedSamplesLandInTheirInterval(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	r := a.NewRecorder()
	for i := range 1000 { // 1000 in second 0, more than one buffer
		r.Record(start.Add(time.Duration(i)*time.Millisecond/2), time.Millisecond, 1, 0)
	}
	for range 10 { // 10 in second 1
		r.Record(start.Add(1500*time.Millisecond), 5*time.Millisecond, 1, 0)
	}
	r.Flush()
	s := a.Snapshot(2 * time.Second)
	assert.Equal(t, int64(1010), s.Histogram.TotalCount())
	assert.InDelta(t, 1000, *s.Series[0].P99US, 2)
	assert.InDelta(t, 5000, *s.Series[1].P50US, 5)
	assert.Equal(t, int64(10), s.Series[1].Ops)
}

// TestTicksReuseHistograms: a closed interval's histograms serve the
// intervals after it, emptied first, so a long run's ticks allocate none
// (each is about 130 KB) and no interval shows another's latencies.
func TestTicksReuseHistograms(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	a.EnableCorrected()
	a.SetOperations([]string{"SET", "GET"})
	r := a.NewRecorder()
	second := func(i int) result.Interval {
		lat := time.Duration(i%3+1) * time.Millisecond // 1, 2, 3 ms, over and over
		at := start.Add(time.Duration(i)*time.Second + 500*time.Millisecond)
		for range 100 {
			r.Record(at, lat, 1, 0)
			r.RecordCorrected(2 * lat)
			r.RecordOp(i%2, lat, 2*lat, 1, 0, 0)
		}
		r.flushAt(at)
		return a.Close(i)
	}
	check := func(i int, iv result.Interval) {
		want := float64((i%3 + 1) * 1000)
		require.NotNil(t, iv.MaxUS, "second %d", i)
		assert.InDelta(t, want, *iv.MaxUS, want/500, "second %d: its own latency only", i)
		assert.InDelta(t, 2*want, *iv.CorrectedMaxUS, want/250, "second %d corrected", i)
		assert.InDelta(t, want, *iv.Operations[i%2].P99US, want/500, "second %d op %d", i, i%2)
		assert.Nil(t, iv.Operations[1-i%2].P99US, "second %d: op %d had no request", i, 1-i%2)
	}
	for i := range 10 { // the first ones make the histograms
		check(i, second(i))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const ticks = 100
	for i := 10; i < 10+ticks; i++ {
		check(i, second(i))
	}
	runtime.ReadMemStats(&after)
	per := float64(after.TotalAlloc-before.TotalAlloc) / ticks
	assert.Less(t, per, 16e3, "bytes allocated a tick (one histogram is about 130 KB)")
	s := a.Snapshot((10 + ticks) * time.Second)
	assert.Equal(t, int64(100*(10+ticks)), s.Histogram.TotalCount(), "the run's totals keep every request")
}

// TestTotalsCopyEachHistogramOnce: with KeepTotals, a tick hands out one
// copy of each cumulative histogram, made in one allocation of its counts.
func TestTotalsCopyEachHistogramOnce(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	a.EnableCorrected()
	a.KeepTotals()
	r := a.NewRecorder()
	for i := range 3 {
		r.Record(start.Add(time.Duration(i)*time.Second+time.Millisecond), time.Millisecond, 1, 0)
		r.RecordCorrected(2 * time.Millisecond)
		r.flushAt(start.Add(time.Duration(i)*time.Second + time.Millisecond))
		a.Tick(i)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := a.Tick(3)
	runtime.ReadMemStats(&after)
	require.NotNil(t, p.Totals)
	assert.Equal(t, int64(3), p.Totals.Service.TotalCount())
	assert.Equal(t, int64(3), p.Totals.Corrected.TotalCount())
	size := float64(a.total.ByteSize())
	assert.Less(t, float64(after.TotalAlloc-before.TotalAlloc), 2.5*size, "two histograms, one copy of the counts each")
}

// TestKeepSeconds: with KeepSeconds, each second keeps its histogram and
// the slots its replies came in; an error reply marks no slot.
func TestKeepSeconds(t *testing.T) {
	start := time.Now()
	a := NewAggregator(start, time.Second)
	a.KeepSeconds()
	r := a.NewRecorder()
	r.Record(start.Add(10*time.Millisecond), time.Millisecond, 1, 0)  // slot 1
	r.Record(start.Add(900*time.Millisecond), time.Millisecond, 1, 1) // an error: no slot
	r.Record(start.Add(1999*time.Millisecond), 5*time.Millisecond, 1, 0)
	r.Flush()
	s := a.Snapshot(2 * time.Second)
	require.Len(t, s.Seconds, 2)
	assert.True(t, s.Seconds[0].Slots.Has(1))
	assert.False(t, s.Seconds[0].Slots.Has(115))
	assert.Equal(t, Slots{1 << 1, 0}, s.Seconds[0].Slots)
	assert.Equal(t, Slots{0, 1 << 63}, s.Seconds[1].Slots)
	h, err := result.DecodeHistogram(s.Seconds[1].Histogram)
	require.NoError(t, err)
	assert.Equal(t, int64(1), h.TotalCount())
	assert.InDelta(t, 5000, h.Max(), 5)

	off := NewAggregator(start, time.Second)
	r = off.NewRecorder()
	r.Record(start.Add(10*time.Millisecond), time.Millisecond, 1, 0)
	r.Flush()
	assert.Nil(t, off.Snapshot(time.Second).Seconds, "kept only when asked")
}

func BenchmarkRecordKeepSeconds(b *testing.B) {
	a := NewAggregator(time.Now(), time.Second)
	a.KeepSeconds()
	r := a.NewRecorder()
	b.ReportAllocs()
	now := time.Now()
	for i := 0; i < b.N; i++ {
		r.Record(now, 150*time.Microsecond, 1, 0)
	}
}

func TestErrorClass(t *testing.T) {
	for _, c := range []struct {
		kind Kind
		msg  string
		want string
	}{
		{Reply, "READONLY You can't write against a read only replica.", "READONLY"},
		{Reply, "LOADING Redis is loading the dataset in memory", "LOADING"},
		{Reply, "MOVED N N:N", "MOVED"},
		{Reply, "CLUSTERDOWN The cluster is down", "CLUSTERDOWN"},
		{Reply, "ERR wrong number of arguments", "reply"},
		{Lost, "read: i/o timeout", "timeout"},
		{Lost, "read: connection reset by peer", "connection"},
		{Connect, "cannot connect to N:N: connection refused", "connect"},
	} {
		assert.Equal(t, c.want, ErrorClass(c.kind, c.msg), c.msg)
	}
	// Kept per second with KeepSeconds.
	start := time.Now()
	a := NewAggregator(start, time.Second)
	a.KeepSeconds()
	r := a.NewRecorder()
	r.Record(start.Add(10*time.Millisecond), time.Millisecond, 1, 1)
	r.Error(start.Add(10*time.Millisecond), Reply, []byte("READONLY You can't write"), 1)
	r.Error(start.Add(20*time.Millisecond), Lost, []byte("read: i/o timeout"), 1)
	r.Flush()
	s := a.Snapshot(time.Second)
	assert.Equal(t, map[string]int64{"READONLY": 1, "timeout": 1}, s.Seconds[0].Errors)
}
