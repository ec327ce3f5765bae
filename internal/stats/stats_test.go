package stats

import (
	"fmt"
	"testing"
	"time"

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
	assert.InDelta(t, 1000, s.Series[0].P99US, 2)
	assert.InDelta(t, 3000, s.Series[1].P50US, 5)
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
	r.Error([]byte("ERR x"), false)
	r.Flush()
	s := a.Snapshot(time.Second)
	assert.Zero(t, s.Totals.Ops)
	assert.Equal(t, int64(5), s.Totals.WarmupOps)
	assert.Empty(t, s.Errors)
}

func TestErrorsGroupedAndBounded(t *testing.T) {
	a := NewAggregator(time.Now().Add(-time.Second), time.Second)
	r := a.NewRecorder()
	for i := 0; i < 3; i++ {
		r.Error([]byte("ERR a"), false)
	}
	r.Error([]byte("read: timeout"), true)
	for i := 0; i < 100; i++ {
		r.Error([]byte(fmt.Sprintf("ERR distinct %d", i)), false)
	}
	r.Flush()
	s := a.Snapshot(time.Second)
	counts := map[string]int64{}
	for _, e := range s.Errors {
		counts[e.Message] = e.Count
	}
	assert.Equal(t, int64(3), counts["ERR a"])
	assert.Equal(t, int64(1), counts["read: timeout"])
	assert.Equal(t, int64(1), s.Totals.TransportErrors)
	assert.LessOrEqual(t, len(s.Errors), maxDistinctErrors+1)
	var total int64
	for _, e := range s.Errors {
		total += e.Count
	}
	assert.Equal(t, int64(104), total, "messages past the bound are counted as other")
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
