package engine

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deferFactory's workers are Deferrers whose replies arrive 1 ms after
// Start (at stallTo for a request started in [stallFrom, stallTo)); they
// keep every start so that tests can check the grid.
type deferFactory struct {
	stallFrom, stallTo time.Time
	service            time.Duration // 0: 1 ms
	grid               time.Duration
	begin              time.Time
	workers            []*deferWorker
}

type deferWorker struct {
	f       *deferFactory
	started time.Time
	arrival time.Time
	starts  []time.Time
	notDue  int // Deferrable says no to every notDue-th request (0: never)
	n       int
}

func (f *deferFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	w := &deferWorker{f: f}
	f.workers = append(f.workers, w)
	return w, nil
}

func (w *deferWorker) Prepare()     { w.n++ }
func (w *deferWorker) Close() error { return nil }
func (w *deferWorker) Deferrable() bool {
	return w.notDue == 0 || w.n%w.notDue != 0
}

// Exec is the path of a request that is not deferrable: 1 ms, waited for.
func (w *deferWorker) Exec(ctx context.Context, s *Step) error {
	time.Sleep(time.Millisecond)
	s.Ops = 1
	return nil
}

func (w *deferWorker) Start(s *Step) error {
	now := time.Now()
	service := w.f.service
	if service == 0 {
		service = time.Millisecond
	}
	w.started, w.arrival = now, now.Add(service)
	if !now.Before(w.f.stallFrom) && now.Before(w.f.stallTo) {
		w.arrival = w.f.stallTo
	}
	w.starts = append(w.starts, now)
	return nil
}

func (w *deferWorker) Finish(ctx context.Context, s *Step) (time.Time, error) {
	if d := time.Until(w.arrival); d > 0 {
		time.Sleep(d) // the reply has not come: wait for it, as a read does
	}
	s.Ops = 1
	return w.arrival, nil
}

func TestDeferredOpenLoopSendsOnTheGridAndTimesTheArrival(t *testing.T) {
	for _, arrivals := range []string{ArrivalsConstant, ArrivalsPoisson} {
		t.Run(arrivals, func(t *testing.T) {
			simulated(t, func(t *testing.T) {
				f := &deferFactory{}
				begin := time.Now()
				res, err := Run(context.Background(), Config{Workers: 4, Duration: 2 * time.Second, Rate: 1000,
					Arrivals: arrivals, Seed: 3, SendGrid: 500 * time.Microsecond}, f)
				require.NoError(t, err)
				assert.Equal(t, 500*time.Microsecond, res.SendGrid)
				tot := res.Snapshot.Totals
				if arrivals == ArrivalsConstant {
					assert.InDelta(t, 2000, tot.Requests, 4, "the schedule's requests, no more")
				} else {
					assert.InEpsilon(t, 2000, tot.Requests, 0.1)
				}
				// Service time is the 1 ms from the send to the arrival,
				// although the reply is read at the worker's next wake.
				assert.InDelta(t, 1000, tot.Latency.P99, 5)
				assert.InDelta(t, 1000, tot.Latency.P50, 5)
				assert.GreaterOrEqual(t, tot.CorrectedLatency.P50, 1000.0-5)
				assert.Zero(t, tot.Schedule.ClientLags)
				if arrivals == ArrivalsConstant {
					// From the intended start: the 1 ms plus up to the
					// grid (Poisson gaps shorter than 1 ms queue behind).
					assert.LessOrEqual(t, tot.CorrectedLatency.P99, 1500.0+5)
					assert.Zero(t, tot.Schedule.Behind)
				}
				for _, w := range f.workers {
					for _, s := range w.starts {
						assert.Zero(t, s.Sub(begin)%(500*time.Microsecond), "every send on a tick of the grid")
						assert.True(t, s.Before(begin.Add(2*time.Second)), "no send at or after the run's end: %s", s.Sub(begin))
					}
				}
			})
		})
	}
}

func TestDeferredOpenLoopCorrectsForAStall(t *testing.T) {
	simulated(t, func(t *testing.T) {
		start := time.Now()
		f := &deferFactory{stallFrom: start.Add(2 * time.Second), stallTo: start.Add(3 * time.Second)}
		res, err := Run(context.Background(), Config{Workers: 2, Duration: 5 * time.Second, Rate: 1000, Seed: 1,
			SendGrid: 250 * time.Microsecond}, f)
		require.NoError(t, err)
		tot := res.Snapshot.Totals
		assert.InDelta(t, 5000, tot.Requests, 4, "the workers catch up after the stall")
		assert.Greater(t, tot.CorrectedLatency.P99, 500_000.0, "a fifth of the users waited up to 1 s")
		assert.Less(t, tot.Latency.P99, 2_000.0, "two stalled requests do not move the service p99")
		assert.Greater(t, tot.Schedule.Behind, int64(900), "the requests due during the stall started behind")
		assert.Zero(t, tot.Schedule.BehindDown, "a stalled reply is not a failed connection")
		assert.Zero(t, tot.Schedule.ClientLags)
	})
}

func TestDeferredOpenLoopMixesInRequestsItCannotDefer(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &deferFactory{}
		res, err := Run(context.Background(), Config{Workers: 2, Duration: time.Second, Rate: 1000, Seed: 1,
			SendGrid: 250 * time.Microsecond}, &notDueFactory{f})
		require.NoError(t, err)
		tot := res.Snapshot.Totals
		assert.InDelta(t, 1000, tot.Requests, 4)
		assert.InDelta(t, 1000, tot.Latency.P99, 5)
		for _, w := range f.workers {
			assert.InDelta(t, 500*2/3, len(w.starts), 4, "two in three requests deferred")
		}
	})
}

// notDueFactory makes workers that cannot defer every third request.
type notDueFactory struct{ *deferFactory }

func (f *notDueFactory) NewWorker(ctx context.Context, id int, seed uint64) (Worker, error) {
	w, err := f.deferFactory.NewWorker(ctx, id, seed)
	w.(*deferWorker).notDue = 3
	return w, err
}

func TestExactSendsWithoutAGrid(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &deferFactory{}
		res, err := Run(context.Background(), Config{Workers: 2, Duration: time.Second, Rate: 1000, Seed: 1}, f)
		require.NoError(t, err)
		assert.Zero(t, res.SendGrid)
		assert.Empty(t, f.workers[0].starts, "Exec, each request at its own start")
		assert.InDelta(t, 1000, res.Snapshot.Totals.Requests, 4)
	})
}

// nopDeferrer is a Deferrer whose replies are always there.
type nopDeferrer struct{ nop }

func (nopDeferrer) Deferrable() bool    { return true }
func (nopDeferrer) Start(s *Step) error { return nil }
func (nopDeferrer) Finish(_ context.Context, s *Step) (time.Time, error) {
	s.Ops = 1
	return time.Time{}, nil
}

type nopDeferrerFactory struct{}

func (nopDeferrerFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	return nopDeferrer{}, nil
}

// nopPoller is a nopDeferrer that a send grid runs in a group: its
// replies are always there, and its descriptor (a pipe's) never wakes.
type nopPoller struct {
	nopDeferrer
	r, w *os.File
}

func (p *nopPoller) Ready() Readiness        { return Arrived }
func (p *nopPoller) PollFD(bool) (int, bool) { return int(p.r.Fd()), true }
func (p *nopPoller) Expire() error           { return errors.New("timeout") }
func (p *nopPoller) Close() error {
	_ = p.w.Close()
	return p.r.Close()
}

type nopPollerFactory struct{}

func (nopPollerFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &nopPoller{r: r, w: w}, nil
}

// TestDeferredOpenLoopDoesNotAllocatePerRequest: the deferred path
// (grid, start, finish, records) allocates nothing per request.
func TestDeferredOpenLoopDoesNotAllocatePerRequest(t *testing.T) {
	assertNoAllocPerRequest(t, Config{Workers: 1, Rate: 1e12, Duration: time.Hour, SendGrid: 250 * time.Microsecond},
		nopDeferrerFactory{})
}

// TestGridWaitIsNotLateness: with a grid longer than a worker's gap, the
// requests that share a tick go one after another's reply (50 µs each);
// the wait for the tick is the grid's, not counted behind schedule,
// though the latency from the intended start counts it. Replies that hold
// a request more than 1 ms past its tick are counted.
func TestGridWaitIsNotLateness(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &deferFactory{service: 50 * time.Microsecond}
		res, err := Run(context.Background(), Config{Workers: 2, Duration: 2 * time.Second, Rate: 1000, Seed: 1,
			SendGrid: 20 * time.Millisecond}, f)
		require.NoError(t, err)
		tot := res.Snapshot.Totals
		assert.InDelta(t, 2000, tot.Requests, 30)
		assert.Zero(t, tot.Schedule.Behind, "ten requests a tick, each after the last one's reply: within 1 ms of the tick")
		assert.Zero(t, tot.Schedule.ClientLags)
		assert.Greater(t, tot.CorrectedLatency.P50, 9_000.0, "users waited for the tick")
		assert.InDelta(t, 50, tot.Latency.P50, 5)

		f = &deferFactory{service: time.Millisecond}
		res, err = Run(context.Background(), Config{Workers: 2, Duration: 2 * time.Second, Rate: 1000, Seed: 1,
			SendGrid: 20 * time.Millisecond}, f)
		require.NoError(t, err)
		assert.Greater(t, res.Snapshot.Totals.Schedule.Behind, int64(1000), "1 ms replies hold most of a tick's ten past it")
	})
}

// TestNoSendAfterTheEnd: a worker asleep toward a tick past the run's end
// (its reply already collected) ends with the run; it sends nothing more.
func TestNoSendAfterTheEnd(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &deferFactory{}
		begin := time.Now()
		// Requests due at 0 and 909 ms; the second's tick is 1.2 s, past the end.
		res, err := Run(context.Background(), Config{Workers: 1, Duration: time.Second, Rate: 1.1, Seed: 1,
			SendGrid: 600 * time.Millisecond}, f)
		require.NoError(t, err)
		require.Len(t, f.workers[0].starts, 1, "only the request whose tick is inside the run")
		assert.Equal(t, begin, f.workers[0].starts[0])
		assert.Equal(t, int64(1), res.Snapshot.Totals.Requests)
	})
}

// An op count after a warm-up holds on the send grid too, where a worker
// has two requests claimed before the first of them lands.
func TestDeferredCountAfterWarmup(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &deferFactory{}
		res, err := Run(context.Background(), Config{Workers: 4, Ops: 1000, Warmup: 500 * time.Millisecond, Rate: 2000,
			Seed: 3, SendGrid: 500 * time.Microsecond}, f)
		require.NoError(t, err)
		assert.Equal(t, int64(1000), res.Snapshot.Totals.Ops)
		assert.InDelta(t, 1000, res.Snapshot.Totals.WarmupOps, 4)
	})
}
