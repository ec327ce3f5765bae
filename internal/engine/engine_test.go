package engine

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/stats"
)

// fake is a Worker whose behaviour is set per test.
type fake struct {
	f        *fakeFactory
	prepared int
}

type fakeFactory struct {
	ops      int           // commands per Exec
	delay    time.Duration // per Exec
	failEach int           // every n-th command's reply is an error
	abortAll bool
	transErr bool
	failNew  bool
	execs    atomic.Int64
	closed   atomic.Int64
	seeds    []uint64
}

func (f *fakeFactory) NewWorker(_ context.Context, id int, seed uint64) (Worker, error) {
	if f.failNew {
		return nil, errors.New("connect: refused")
	}
	f.seeds = append(f.seeds, seed)
	return &fake{f: f}, nil
}

func (w *fake) Prepare() { w.prepared++ }

func (w *fake) Exec(ctx context.Context, s *Step) error {
	n := w.f.execs.Add(1)
	if w.f.delay > 0 {
		select {
		case <-time.After(w.f.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if w.f.transErr {
		return errors.New("read: connection reset")
	}
	s.Ops = w.f.ops
	if w.f.failEach > 0 && n%int64(w.f.failEach) == 0 {
		s.Failed = 1
		s.Err = []byte("ERR value is not an integer")
	}
	s.Aborted = w.f.abortAll
	return nil
}

func (w *fake) Close() error { w.f.closed.Add(1); return nil }

func TestStopByCount(t *testing.T) {
	tests := []struct {
		name      string
		ops, per  int64
		wantSteps int64
	}{
		{"single", 1000, 1, 1000},
		{"batches of 10", 1000, 10, 100},
		{"batches round up", 1001, 10, 101},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeFactory{ops: int(tc.per)}
			res, err := Run(context.Background(), Config{Workers: 4, Ops: tc.ops, OpsPerRequest: int(tc.per), Seed: 1}, f)
			require.NoError(t, err)
			assert.Equal(t, StopCount, res.StopReason)
			assert.Equal(t, tc.wantSteps, res.Snapshot.Totals.Requests)
			assert.Equal(t, tc.wantSteps*tc.per, res.Snapshot.Totals.Ops)
			assert.Equal(t, int64(4), f.closed.Load())
		})
	}
}

// The tests below run in a synctest bubble: time is simulated, so the
// durations are exact and the tests do not wait on the wall clock.

func TestStopByDuration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeFactory{ops: 1, delay: time.Millisecond}
		start := time.Now()
		var ticks atomic.Int64
		res, err := Run(context.Background(), Config{Workers: 2, Duration: 1200 * time.Millisecond, Tick: 200 * time.Millisecond,
			Progress: func(stats.Progress) { ticks.Add(1) }}, f)
		require.NoError(t, err)
		assert.Equal(t, StopDuration, res.StopReason)
		assert.InDelta(t, 1200*time.Millisecond, time.Since(start), float64(2*time.Millisecond), "requests in flight at the deadline complete")
		assert.InDelta(t, 2400, res.Snapshot.Totals.Ops, 2, "two workers, one request a millisecond each")
		assert.GreaterOrEqual(t, ticks.Load(), int64(5))
		assert.GreaterOrEqual(t, len(res.Snapshot.Series), 6)
		var sum int64
		for _, iv := range res.Snapshot.Series {
			sum += iv.Ops
		}
		assert.Equal(t, res.Snapshot.Totals.Ops, sum, "the series adds up to the totals")
		assert.InDelta(t, 1000.0, res.Snapshot.Totals.Latency.P50, 1, "latency is the 1 ms delay")
	})
}

func TestWarmupExcluded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeFactory{ops: 1, delay: time.Millisecond}
		res, err := Run(context.Background(), Config{Workers: 1, Duration: 300 * time.Millisecond, Warmup: 300 * time.Millisecond}, f)
		require.NoError(t, err)
		tot := res.Snapshot.Totals
		assert.InDelta(t, 300, tot.WarmupOps, 1)
		assert.InDelta(t, 300, tot.Ops, 1)
		assert.Less(t, tot.Ops+tot.WarmupOps, f.execs.Load()+1)
		assert.Equal(t, 300*time.Millisecond, res.Elapsed)
	})
}

func TestBatchingCountsAndAborts(t *testing.T) {
	f := &fakeFactory{ops: 10, abortAll: true}
	res, err := Run(context.Background(), Config{Workers: 2, Ops: 500, OpsPerRequest: 10}, f)
	require.NoError(t, err)
	assert.Equal(t, int64(500), res.Snapshot.Totals.Ops)
	assert.Equal(t, int64(50), res.Snapshot.Totals.Requests)
	assert.Equal(t, int64(50), res.Snapshot.Totals.Aborted)
}

func TestErrorsCountedByMessage(t *testing.T) {
	f := &fakeFactory{ops: 1, failEach: 4}
	res, err := Run(context.Background(), Config{Workers: 1, Ops: 400}, f)
	require.NoError(t, err)
	assert.Equal(t, int64(100), res.Snapshot.Totals.Errors)
	require.Len(t, res.Snapshot.Errors, 1)
	assert.Equal(t, "ERR value is not an integer", res.Snapshot.Errors[0].Message)
	assert.Equal(t, int64(100), res.Snapshot.Errors[0].Count)
	assert.InDelta(t, 0.25, res.Snapshot.Totals.ErrorRate, 1e-9)
}

func TestMaxErrorsStops(t *testing.T) {
	f := &fakeFactory{transErr: true}
	res, err := Run(context.Background(), Config{Workers: 2, Duration: 10 * time.Second, MaxErrors: 5, Backoff: time.Millisecond}, f)
	require.NoError(t, err)
	assert.Equal(t, StopMaxErrors, res.StopReason)
	assert.GreaterOrEqual(t, res.Snapshot.Totals.TransportErrors, int64(5))
	assert.Equal(t, "read: connection reset", res.Snapshot.Errors[0].Message)
}

func TestInterruptKeepsPartialResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeFactory{ops: 1, delay: time.Millisecond}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		res, err := Run(ctx, Config{Workers: 3, Duration: time.Minute}, f)
		require.NoError(t, err)
		assert.Equal(t, 300*time.Millisecond, time.Since(start))
		assert.Equal(t, StopInterrupted, res.StopReason)
		assert.InDelta(t, 900, res.Snapshot.Totals.Ops, 3)
		assert.Zero(t, res.Snapshot.Totals.Errors, "the cancelled in-flight request is not an error")
	})
}

func TestConnectFailureIsAnError(t *testing.T) {
	_, err := Run(context.Background(), Config{Workers: 2, Ops: 10}, &fakeFactory{failNew: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connect: refused")
}

func TestSeedsDistinctAndReproducible(t *testing.T) {
	f := &fakeFactory{ops: 1}
	res, err := Run(context.Background(), Config{Workers: 8, Ops: 8, Seed: 99}, f)
	require.NoError(t, err)
	seen := map[uint64]bool{}
	for i, s := range res.Seeds.Workers {
		assert.Equal(t, WorkerSeed(99, i), s)
		seen[s] = true
	}
	assert.Len(t, seen, 8)
	assert.Equal(t, uint64(99), res.Seeds.Base)
}

func TestBadConfig(t *testing.T) {
	_, err := Run(context.Background(), Config{Workers: 0, Ops: 1}, &fakeFactory{})
	assert.Error(t, err)
	_, err = Run(context.Background(), Config{Workers: 1}, &fakeFactory{})
	assert.Error(t, err)
}

// nop is a worker that does nothing, to measure the engine's own cost.
type nop struct{}

func (nop) Prepare()                              {}
func (nop) Exec(_ context.Context, s *Step) error { s.Ops = 1; return nil }
func (nop) Close() error                          { return nil }

type nopFactory struct{}

func (nopFactory) NewWorker(context.Context, int, uint64) (Worker, error) { return nop{}, nil }

// BenchmarkEngineLoop measures the engine's per-request cost (clock reads,
// count claim, recording), closed-loop and open-loop side by side: it
// allocates nothing per request. The open loop runs at a rate no worker
// keeps up with, so every request is already due and the figure is the
// pacing's bookkeeping (schedule, lateness) without the sleep; the sleep's
// cost is the OS's and is measured by make bench-client. The open-group
// cases are the send grid's group (Linux; elsewhere they run deferred);
// open-group-own-start is a group without a grid (Linux; elsewhere the
// workers wait for each reply). The closed case is a goroutine per worker,
// the path of workers the engine cannot poll; on Linux the Redis driver's
// closed loop runs in groups, measured by BenchmarkClosedGroup.
func BenchmarkEngineLoop(b *testing.B) {
	const grid = 250 * time.Microsecond
	for _, tc := range []struct {
		name     string
		rate     float64
		arrivals string
		grid     time.Duration
		f        Factory
	}{{"closed", 0, "", grid, nopFactory{}}, {"open-constant", 1e12, ArrivalsConstant, grid, nopFactory{}},
		{"open-poisson", 1e12, ArrivalsPoisson, grid, nopFactory{}},
		{"open-deferred-constant", 1e12, ArrivalsConstant, grid, nopDeferrerFactory{}},
		{"open-deferred-poisson", 1e12, ArrivalsPoisson, grid, nopDeferrerFactory{}},
		{"open-group-constant", 1e12, ArrivalsConstant, grid, nopPollerFactory{}},
		{"open-group-poisson", 1e12, ArrivalsPoisson, grid, nopPollerFactory{}},
		{"open-group-own-start", 1e12, ArrivalsConstant, 0, nopPollerFactory{}},
		{"open-window", 1e12, ArrivalsConstant, 0, nopStreamerFactory{}}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			cfg := Config{Workers: 1, Ops: int64(b.N), Rate: tc.rate, Arrivals: tc.arrivals, SendGrid: tc.grid}
			if tc.rate > 0 {
				cfg.Duration = time.Hour
			}
			start := time.Now()
			res, err := Run(context.Background(), cfg, tc.f)
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N), "ns/req")
			require.NoError(b, err)
			require.Equal(b, int64(b.N), res.Snapshot.Totals.Ops)
		})
	}
}

func TestEngineLoopDoesNotAllocatePerRequest(t *testing.T) {
	assertNoAllocPerRequest(t, Config{Workers: 1}, nopFactory{})
}

// TestOpenLoopDoesNotAllocatePerRequest: the pacing path (schedule,
// lateness records) allocates nothing per request either.
func TestOpenLoopDoesNotAllocatePerRequest(t *testing.T) {
	for _, arrivals := range []string{ArrivalsConstant, ArrivalsPoisson} {
		t.Run(arrivals, func(t *testing.T) {
			assertNoAllocPerRequest(t, Config{Workers: 1, Rate: 1e12, Arrivals: arrivals, Duration: time.Hour}, nopFactory{})
		})
	}
}

// assertNoAllocPerRequest runs cfg for 1,000 and for 201,000 requests: the
// 200,000 more may cost a few more allocations (a tick), not one each.
func assertNoAllocPerRequest(t *testing.T, cfg Config, f Factory) {
	t.Helper()
	measure := func(n int64) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		cfg.Ops = n
		_, err := Run(context.Background(), cfg, f)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	small, large := measure(1000), measure(201000)
	assert.Less(t, int64(large)-int64(small), int64(2000), "allocations grow with requests: %d vs %d", small, large)
}

// stallFactory's workers take 1 ms per request, except that every request
// sent in [stallFrom, stallTo) waits until stallTo (a server pause), or,
// with refuse, fails to connect (the server down).
type stallFactory struct {
	stallFrom, stallTo time.Time
	refuse             bool
}

type stallWorker struct{ f *stallFactory }

func (f *stallFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	return &stallWorker{f}, nil
}
func (w *stallWorker) Prepare()     {}
func (w *stallWorker) Close() error { return nil }
func (w *stallWorker) Exec(ctx context.Context, s *Step) error {
	now := time.Now()
	d := time.Millisecond
	if !now.Before(w.f.stallFrom) && now.Before(w.f.stallTo) {
		if w.f.refuse {
			return &ConnectError{Err: errors.New("connection refused")}
		}
		d = w.f.stallTo.Sub(now)
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return ctx.Err()
	}
	s.Ops = 1
	return nil
}

// simulated runs f in a synctest bubble (simulated time) with the precise
// sleep off: its timerfds would wait on the real clock.
func simulated(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		preciseSleep = false
		defer func() { preciseSleep = true }()
		f(t)
	})
}

func TestOpenLoopKeepsItsRate(t *testing.T) {
	for _, arrivals := range []string{ArrivalsConstant, ArrivalsPoisson} {
		t.Run(arrivals, func(t *testing.T) {
			simulated(t, func(t *testing.T) {
				f := &stallFactory{}
				res, err := Run(context.Background(), Config{Workers: 4, Duration: 2 * time.Second, Rate: 1000, Arrivals: arrivals, Seed: 3}, f)
				require.NoError(t, err)
				tot := res.Snapshot.Totals
				if arrivals == ArrivalsConstant {
					assert.InDelta(t, 2000, tot.Requests, 4, "the schedule's requests, no more")
				} else {
					assert.InEpsilon(t, 2000, tot.Requests, 0.1)
				}
				require.NotNil(t, tot.CorrectedLatency)
				assert.InDelta(t, 1000, tot.Latency.P99, 5, "service time is the 1 ms")
				require.NotNil(t, tot.Schedule)
				assert.Zero(t, tot.Schedule.ClientLags)
				require.NotNil(t, res.Snapshot.Corrected)
			})
		})
	}
}

func TestOpenLoopCorrectsForAStall(t *testing.T) {
	simulated(t, func(t *testing.T) {
		start := time.Now()
		f := &stallFactory{stallFrom: start.Add(2 * time.Second), stallTo: start.Add(3 * time.Second)}
		open, err := Run(context.Background(), Config{Workers: 2, Duration: 5 * time.Second, Rate: 1000, Seed: 1}, f)
		require.NoError(t, err)
		tot := open.Snapshot.Totals
		assert.InDelta(t, 5000, tot.Requests, 4, "the workers catch up after the stall")
		assert.Greater(t, tot.CorrectedLatency.P99, 500_000.0, "a fifth of the users waited up to 1 s")
		assert.Less(t, tot.Latency.P99, 2_000.0, "two stalled requests do not move the service p99")
		assert.Greater(t, tot.Schedule.Behind, int64(900), "the requests due during the stall started behind")
		assert.Zero(t, tot.Schedule.BehindDown, "a stalled reply is not a failed connection")
		assert.Zero(t, tot.Schedule.ClientLags)
		var stalled int
		for _, iv := range open.Snapshot.Series {
			if iv.CorrectedP99US != nil && *iv.CorrectedP99US > 100_000 {
				stalled++
			}
		}
		assert.GreaterOrEqual(t, stalled, 1, "the per-second series shows it too")

		f = &stallFactory{stallFrom: time.Now().Add(2 * time.Second), stallTo: time.Now().Add(3 * time.Second)}
		closed, err := Run(context.Background(), Config{Workers: 2, Duration: 5 * time.Second, Seed: 1}, f)
		require.NoError(t, err)
		assert.Nil(t, closed.Snapshot.Totals.CorrectedLatency)
		assert.Less(t, closed.Snapshot.Totals.Latency.P99, 2_000.0, "closed-loop, the stall is two requests")
	})
}

// windowish answers each Exec with a reply to a command sent 5 ms before,
// and holds 3 more in flight that Drain reads at the end.
type windowish struct{ drained *atomic.Int64 }

func (windowish) Prepare()     {}
func (windowish) Close() error { return nil }
func (windowish) Exec(_ context.Context, s *Step) error {
	s.Ops, s.Sent = 1, time.Now().Add(-5*time.Millisecond)
	return nil
}
func (w windowish) Drain(_ context.Context, s *Step) error {
	s.Ops = 3
	w.drained.Add(3)
	return nil
}

type windowishFactory struct{ drained atomic.Int64 }

func (f *windowishFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	return windowish{&f.drained}, nil
}

// TestStepSentAndDrain: a reply's latency runs from Step.Sent, and what a
// Drainer reads after the last Exec counts as completed after the end.
func TestStepSentAndDrain(t *testing.T) {
	f := &windowishFactory{}
	res, err := Run(context.Background(), Config{Workers: 2, Ops: 100}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(100), tot.Ops)
	assert.Equal(t, int64(6), tot.AfterDeadlineOps, "3 drained per worker")
	assert.Equal(t, int64(6), f.drained.Load())
	assert.GreaterOrEqual(t, tot.Latency.P50, 5000.0, "from the command's own send, 5 ms before")
}

// stamper is a SendStamper: with sent set, each Exec's reply answers a
// command sent 5 ms before; without, it forgets Sent and takes 2 ms.
type stamper struct{ sent bool }

// doneStamper's command goes as its Exec starts, its reply is whole 3 ms
// later, and its Exec returns 1 ms after that.
type doneStamper struct{ stamper }

func (doneStamper) Exec(_ context.Context, s *Step) error {
	s.Ops, s.Sent = 1, time.Now()
	time.Sleep(3 * time.Millisecond)
	s.Done = time.Now()
	time.Sleep(time.Millisecond)
	return nil
}

type doneStamperFactory struct{}

func (doneStamperFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	return doneStamper{}, nil
}

// TestDoneStamp: a reply's Step.Done is its time, not the clock after
// Exec: every latency is Done - Sent, 3 ms, not 4.
func TestDoneStamp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		res, err := Run(context.Background(), Config{Workers: 2, Ops: 50}, doneStamperFactory{})
		require.NoError(t, err)
		tot := res.Snapshot.Totals
		assert.Equal(t, int64(50), tot.Ops)
		assert.InDelta(t, 3000, tot.Latency.Min, 3, "the histogram's precision")
		assert.InDelta(t, 3000, tot.Latency.Max, 3)
	})
}

func (stamper) Prepare()     {}
func (stamper) Close() error { return nil }
func (stamper) StampsSends() {}
func (w stamper) Exec(_ context.Context, s *Step) error {
	s.Ops = 1
	if w.sent {
		s.Sent = time.Now().Add(-5 * time.Millisecond)
	} else {
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

type stamperFactory struct{ sent bool }

func (f stamperFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	return stamper(f), nil
}

// TestSendStamper: a SendStamper's latency runs from its Step.Sent (the
// loop reads no start time); one that leaves Sent unset is timed from its
// previous Exec's end, never less than its Exec took.
func TestSendStamper(t *testing.T) {
	for _, tc := range []struct {
		sent bool
		min  float64
	}{{true, 5000}, {false, 2000}} {
		t.Run(strconv.FormatBool(tc.sent), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				res, err := Run(context.Background(), Config{Workers: 2, Ops: 50}, stamperFactory{tc.sent})
				require.NoError(t, err)
				tot := res.Snapshot.Totals
				assert.Equal(t, int64(50), tot.Ops)
				assert.Zero(t, tot.Errors)
				assert.GreaterOrEqual(t, tot.Latency.Min, tc.min)
			})
		})
	}
}

// An op count counts the requests after the warm-up: -n 100 with a
// warm-up measures 100.
func TestCountAfterWarmup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeFactory{ops: 1, delay: time.Millisecond}
		res, err := Run(context.Background(), Config{Workers: 2, Ops: 100, Warmup: 300 * time.Millisecond}, f)
		require.NoError(t, err)
		tot := res.Snapshot.Totals
		assert.Equal(t, StopCount, res.StopReason)
		assert.Equal(t, int64(100), tot.Ops)
		assert.InDelta(t, 600, tot.WarmupOps, 2)
	})
}

// opFactory's worker 0 writes (operation 1); the others query (operation 0).
type opFactory struct{ fakeFactory }

type opFake struct {
	fake
	op int
}

func (f *opFactory) NewWorker(_ context.Context, id int, _ uint64) (Worker, error) {
	return &opFake{fake: fake{f: &f.fakeFactory}, op: 1 - min(id, 1)}, nil
}

func (w *opFake) Exec(ctx context.Context, s *Step) error {
	err := w.fake.Exec(ctx, s)
	s.Op = w.op
	return err
}

// Background workers are not counted by the op count, and they stop when
// the counted workers have spent it.
func TestBackgroundWorkersEndWithTheCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &opFactory{fakeFactory{ops: 1, delay: time.Millisecond}}
		start := time.Now()
		res, err := Run(context.Background(), Config{Workers: 3, Background: 1, Ops: 200, Operations: []string{"query", "write"}}, f)
		require.NoError(t, err)
		assert.Equal(t, StopCount, res.StopReason)
		ops := res.Snapshot.Operations
		require.Len(t, ops, 2)
		assert.Equal(t, int64(200), ops[0].Ops, "the count is the queries'")
		assert.InDelta(t, 100, ops[1].Ops, 2, "the writer ran beside them, one request a millisecond")
		assert.InDelta(t, 100*time.Millisecond, time.Since(start), float64(2*time.Millisecond))
	})
	_, err := Run(context.Background(), Config{Workers: 1, Background: 1, Ops: 10}, &fakeFactory{ops: 1})
	assert.ErrorContains(t, err, "background workers alone never end")
}

// TestOutageIsNotClientLag: sends held up by an unreachable target (the
// back-off, failed reconnects) count behind schedule, not as the client's
// lag: the summary must not say the client fell behind.
func TestOutageIsNotClientLag(t *testing.T) {
	simulated(t, func(t *testing.T) {
		now := time.Now()
		f := &stallFactory{stallFrom: now.Add(500 * time.Millisecond), stallTo: now.Add(800 * time.Millisecond), refuse: true}
		res, err := Run(context.Background(), Config{Workers: 4, Duration: 2 * time.Second, Rate: 1000, Seed: 1}, f)
		require.NoError(t, err)
		tot := res.Snapshot.Totals
		require.NotNil(t, tot.Schedule)
		assert.Positive(t, tot.Schedule.Behind, "the sends due in the outage went late")
		// 1,000/s for the 300 ms of the outage waited for a connection;
		// those due while the workers caught up waited for their replies.
		assert.InDelta(t, 300, tot.Schedule.BehindDown, 8, "the sends due in the outage waited for a connection")
		assert.Greater(t, tot.Schedule.Behind, tot.Schedule.BehindDown)
		assert.Zero(t, tot.Schedule.ClientLags)
	})
}
