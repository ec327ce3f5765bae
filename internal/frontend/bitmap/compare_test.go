package bitmap

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/pkg/result"
)

// targets starts the embedded server and a real redis-server.
func targets(t *testing.T) (roaring, redis endpoint.Target) {
	r := testenv.StartRedis(t)
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return endpoint.Target{Addr: srv.Addr(), Protocol: 2, Timeout: time.Minute, InProcess: true},
		endpoint.Target{Addr: r.Addr, Protocol: 2, Timeout: time.Minute}
}

func structure(p result.BitmapPoint, name string) result.BitmapStructure {
	for _, s := range p.Structures {
		if s.Name == name {
			return s
		}
	}
	return result.BitmapStructure{}
}

func compare(t *testing.T, o Options) (*result.BitmapComparison, string) {
	var out, errb bytes.Buffer
	doc, err := Run(context.Background(), o, harness.IO{Out: &out, Err: &errb, Version: "test"})
	require.NoError(t, err, errb.String()+out.String())
	return doc, out.String()
}

// TestSparseUniverseMemory: 100,000 IDs spread over all of 2^32 make a
// Redis bitmap of 512 MiB a key, over 100 times TairRoaring's containers;
// every structure answers alike.
func TestSparseUniverseMemory(t *testing.T) {
	ro, re := targets(t)
	o := Options{Roaring: ro, Redis: re, Gen: GenSpec{Shape: ShapeUniform, Universe: 1 << 32}, Cardinalities: []uint64{100_000},
		Keys: 2, Connections: 1, Duration: 200 * time.Millisecond, Probes: 10, MaxMemory: 3 << 30, Seed: 5, ServerStats: true,
		Ops: []string{bitmaps.OpMembership, bitmaps.OpCount, bitmaps.OpRank, bitmaps.OpAndCard2, bitmaps.OpAdd}}
	doc, out := compare(t, o)
	require.Len(t, doc.Points, 1)
	p := doc.Points[0]
	tr, bm, set := structure(p, bitmaps.TairRoaring), structure(p, bitmaps.RedisBitmap), structure(p, bitmaps.RedisSet)
	assert.GreaterOrEqual(t, bm.MemoryBytes, 100*tr.MemoryBytes, "Redis bitmap %d bytes, TairRoaring %d", bm.MemoryBytes, tr.MemoryBytes)
	assert.Greater(t, set.MemoryBytes, tr.MemoryBytes)
	for _, c := range p.Crosscheck {
		assert.Equal(t, c.Probes, c.Agreed, c.Operation)
		assert.Empty(t, c.Difference)
	}
	assert.Contains(t, out, "every structure gave the answer the loaded IDs give")
	assert.Contains(t, out, "not Tair")
	for _, op := range p.Operations {
		for _, r := range op.Results {
			if r.Closed == nil {
				continue
			}
			require.NotNil(t, r.Closed.Server, "%s on %s: INFO sampled", op.Name, r.Structure)
			if rc := r.Closed.Server.Reconciliation; assert.NotNil(t, rc, "%s on %s", op.Name, r.Structure) {
				assert.True(t, rc.Match, "%s on %s: the server counted %d, the client %d", op.Name, r.Structure, rc.Server, rc.Client)
			}
		}
	}
}

// TestHalfDensity: at 50% density in 2^20 the two bitmaps hold the same
// data bytes; MEMORY USAGE differs by the allocator's size class on Redis
// (131,082 bytes asked, 163,840 given). Every operation agrees across the
// three structures.
func TestHalfDensity(t *testing.T) {
	ro, re := targets(t)
	o := Options{Roaring: ro, Redis: re, Gen: GenSpec{Shape: ShapeUniform, Universe: 1 << 20}, Cardinalities: []uint64{1 << 19},
		Keys: 2, Connections: 1, Duration: 200 * time.Millisecond, Probes: 20, MaxMemory: 1 << 30, Seed: 9}
	doc, _ := compare(t, o)
	p := doc.Points[0]
	tr, bm := structure(p, bitmaps.TairRoaring), structure(p, bitmaps.RedisBitmap)
	ratio := float64(bm.DataBytes) / float64(tr.DataBytes)
	assert.InDelta(t, 1, ratio, 0.2, "data bytes: bitmap %d, TairRoaring %d", bm.DataBytes, tr.DataBytes)
	mem := float64(bm.MemoryBytes) / float64(tr.MemoryBytes)
	assert.InDelta(t, 1, mem, 0.3, "MEMORY USAGE: bitmap %d, TairRoaring %d", bm.MemoryBytes, tr.MemoryBytes)
	require.Len(t, p.Crosscheck, len(bitmaps.Ops))
	for _, c := range p.Crosscheck {
		assert.Positive(t, c.Probes, c.Operation)
		assert.Equal(t, c.Probes, c.Agreed, c.Operation)
	}
	for _, op := range p.Operations {
		for _, r := range op.Results {
			if r.Unsupported == "" {
				require.NotNil(t, r.Closed, "%s %s", op.Name, r.Structure)
				assert.Positive(t, r.Closed.Totals.Ops, "%s %s", op.Name, r.Structure)
				assert.Zero(t, r.Closed.Totals.Errors, "%s %s", op.Name, r.Structure)
			}
		}
	}
}

// TestSweepCrossover: a sweep prints the winners and where they change,
// and the plan refuses what --max-memory does not allow before loading.
func TestSweepCrossover(t *testing.T) {
	ro, re := targets(t)
	o := Options{Roaring: ro, Redis: re, Gen: GenSpec{Shape: ShapeUniform, Universe: 1 << 20}, Cardinalities: []uint64{100, 500_000},
		Keys: 2, Connections: 1, Duration: 100 * time.Millisecond, Probes: 5, Seed: 2, Structures: []string{bitmaps.RedisBitmap, bitmaps.RedisSet},
		Ops: []string{bitmaps.OpMembership, bitmaps.OpCount}, MaxMemory: 1 << 30}
	doc, out := compare(t, o)
	require.Len(t, doc.Points, 2)
	assert.Equal(t, bitmaps.RedisSet, report.BitmapSmallest(doc.Points[0]), "100 IDs: an intset is smaller than a 128 KiB string")
	assert.Equal(t, bitmaps.RedisBitmap, report.BitmapSmallest(doc.Points[1]))
	assert.Contains(t, out, "memory: redis-set up to 100, redis-bitmap from 500000")

	o.MaxMemory = 1 << 20
	var errb bytes.Buffer
	_, err := Run(context.Background(), o, harness.IO{Out: &bytes.Buffer{}, Err: &errb})
	require.ErrorContains(t, err, "above --max-memory 1.0 MiB, nothing loaded: point 2 (500000 IDs below 1048576) would take about")
	assert.NotContains(t, err.Error(), "point 1 (", "point 1 fits")
	assert.Equal(t, "0", testenv.Do(t, re.Addr, "DBSIZE"))
}

// TestQueueingIsNamedWithTheServersTime: a set intersection on a real,
// single-threaded redis-server at 4 connections waits for the others'
// calls. Each structure's closed-loop run carries the server's own time
// per call (INFO commandstats usec_per_call over the run), and the verdict
// names the latencies that are mostly queueing with that time beside them.
// At 1 connection nothing is called queueing.
func TestQueueingIsNamedWithTheServersTime(t *testing.T) {
	ro, re := targets(t)
	base := Options{Roaring: ro, Redis: re, Gen: GenSpec{Shape: ShapeUniform, Universe: 1 << 22}, Cardinalities: []uint64{200_000},
		Keys: 2, Duration: 500 * time.Millisecond, Probes: 2, Seed: 3, Structures: []string{bitmaps.TairRoaring, bitmaps.RedisSet},
		Ops: []string{bitmaps.OpAndCard2}}
	four := base
	four.Connections = 4
	doc, out := compare(t, four)
	r := doc.Points[0].Operations[0].Results[1]
	require.Equal(t, bitmaps.RedisSet, r.Structure)
	require.Positive(t, r.ServerUsecPerCall, "redis-server's usec_per_call for the run")
	mean := r.Closed.Totals.Latency.Mean
	require.Greater(t, mean, report.BitmapQueueingAt*r.ServerUsecPerCall, "4 connections on one thread queue: mean %.0f µs, server %.0f µs", mean, r.ServerUsecPerCall)
	assert.Contains(t, out, fmt.Sprintf("and-card-2, redis-set: the mean %.3f ms at 4 connections is mostly queueing: the server spent %.3f ms per call",
		mean/1000, r.ServerUsecPerCall/1000))
	assert.Positive(t, doc.Points[0].Operations[0].Results[0].ServerUsecPerCall, "the embedded server times its commands too")

	one := base
	one.Connections = 1
	_, out = compare(t, one)
	assert.NotContains(t, out, "queueing")
}

// TestProgressEverySecond: what generates the points says so at once, and
// how long it has taken at least once a second.
func TestProgressEverySecond(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, withProgress(&b, "point 1", func() error { time.Sleep(1200 * time.Millisecond); return nil }))
	assert.Equal(t, "generating point 1\n  … 1s so far\n", b.String())
}
