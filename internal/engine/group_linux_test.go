package engine

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// pairFactory's workers are Pollers on one end of a Unix socket pair; a
// goroutine on the other end answers each request byte with a reply byte
// after delay (never, once stall is set; the pair breaks when breakAt of
// a worker's requests were answered). The engine runs them in groups.
type pairFactory struct {
	delay   time.Duration
	breakAt int64 // 0: never
	stall   atomic.Bool
	served  atomic.Int64 // requests the other ends received
	// large: Ready cannot tell a reply whole (as one larger than the read buffer).
	large bool
	// reconnected counts the requests of workers whose pair broke.
	reconnected atomic.Int64
	ready       atomic.Int64 // Ready calls (only a group makes them)
	mu          sync.Mutex
	workers     []*pairWorker
	// waited is, for each request given up (Expire), how long it had
	// waited since its Start.
	waited []time.Duration
}

type pairWorker struct {
	f      *pairFactory
	fd     int
	broken bool
	got    bool // Ready read the reply
	eof    bool // Ready found the pair closed
	buf    [64]byte
	pfd    [1]unix.PollFd
	sent   time.Time // the last Start
}

func (f *pairFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	w := &pairWorker{f: f, fd: fds[0]}
	f.mu.Lock()
	f.workers = append(f.workers, w)
	f.mu.Unlock()
	go f.serve(fds[1])
	return w, nil
}

// serve answers one byte per byte until the pair closes (or breaks).
func (f *pairFactory) serve(fd int) {
	defer unix.Close(fd)
	if err := unix.SetNonblock(fd, false); err != nil {
		return
	}
	var b [64]byte
	answered := int64(0)
	for {
		n, err := unix.Read(fd, b[:])
		if n <= 0 || err != nil {
			return
		}
		f.served.Add(int64(n))
		for range n {
			if f.stall.Load() {
				continue
			}
			if f.delay > 0 {
				time.Sleep(f.delay)
			}
			answered++
			if f.breakAt > 0 && answered == f.breakAt {
				return // the connection drops with a request in flight
			}
			if _, err := unix.Write(fd, replyByte); err != nil {
				return
			}
		}
	}
}

func (w *pairWorker) Prepare()     {}
func (w *pairWorker) Close() error { return unix.Close(w.fd) }

// Exec sends a request and waits for its reply (a closed loop); after a
// failure (the worker left its group) it is a reconnected request,
// answered at once.
func (w *pairWorker) Exec(ctx context.Context, s *Step) error {
	if w.broken {
		w.f.reconnected.Add(1)
		s.Ops = 1
		return nil
	}
	if err := w.Start(s); err != nil {
		return err
	}
	_, err := w.Finish(ctx, s)
	return err
}

func (w *pairWorker) Deferrable() bool        { return !w.broken }
func (w *pairWorker) PollFD(bool) (int, bool) { return w.fd, true }

func (w *pairWorker) Start(s *Step) error {
	if _, err := unix.Write(w.fd, requestByte); err != nil {
		w.broken = true
		return err
	}
	w.sent = time.Now()
	return nil
}

var errTimedOut = errors.New("timeout")

// Expire notes how long the request waited; the pair is given up as a
// dropped connection is (the worker's next requests are reconnected ones).
func (w *pairWorker) Expire() error {
	w.f.mu.Lock()
	w.f.waited = append(w.f.waited, time.Since(w.sent))
	w.f.mu.Unlock()
	w.broken = true
	return errTimedOut
}

func (w *pairWorker) Ready() Readiness {
	w.f.ready.Add(1)
	if !w.got {
		n, err := unix.Read(w.fd, w.buf[:1])
		if err == unix.EAGAIN {
			return NotYet
		}
		w.got, w.eof = n == 1, n != 1
	}
	if w.f.large && w.got {
		return Unknown // as a reply larger than the read buffer
	}
	return Arrived
}

var (
	errPairClosed          = errors.New("the pair closed")
	requestByte, replyByte = []byte{'q'}, []byte{'r'}
)

func (w *pairWorker) Finish(ctx context.Context, s *Step) (time.Time, error) {
	if w.eof {
		w.broken = true
		return time.Time{}, errPairClosed
	}
	for !w.got {
		n, err := unix.Read(w.fd, w.buf[:1])
		if err == unix.EAGAIN {
			w.pfd[0] = unix.PollFd{Fd: int32(w.fd), Events: unix.POLLIN}
			if ctx.Err() != nil {
				return time.Time{}, ctx.Err()
			}
			_, _ = unix.Poll(w.pfd[:], 10)
			continue
		}
		if n == 0 || err != nil {
			w.broken = true
			return time.Time{}, errPairClosed
		}
		w.got = true
	}
	w.got = false
	if w.buf[0] != 'r' {
		w.broken = true
		return time.Time{}, errPairClosed
	}
	s.Ops = 1
	return time.Time{}, nil
}

// TestGroupSendsTheSchedule: an open loop's Pollers run in groups, on the
// send grid or, without one, each request at its own intended start; every
// request sent is answered and counted once, none lost.
func TestGroupSendsTheSchedule(t *testing.T) {
	for _, grid := range []time.Duration{250 * time.Microsecond, 0} {
		for _, arrivals := range []string{ArrivalsConstant, ArrivalsPoisson} {
			t.Run(grid.String()+"/"+arrivals, func(t *testing.T) {
				f := &pairFactory{}
				res, err := Run(context.Background(), Config{Workers: 8, Duration: time.Second, Rate: 2000, Arrivals: arrivals,
					Seed: 1, SendGrid: grid}, f)
				require.NoError(t, err)
				tot := res.Snapshot.Totals
				assert.Positive(t, f.ready.Load(), "the workers ran in a group")
				assert.InEpsilon(t, 2000, tot.Requests, 0.3, "the schedule's requests (a busy machine may hold some past the end)")
				assert.Equal(t, f.served.Load(), tot.Requests+tot.AfterDeadlineOps, "every request sent is counted once")
				assert.Zero(t, tot.Errors)
				assert.Equal(t, grid, res.SendGrid)
				require.NotNil(t, tot.CorrectedLatency)
				assert.GreaterOrEqual(t, tot.CorrectedLatency.P50, tot.Latency.P50)
			})
		}
	}
}

// TestGroupWithoutGridSendsAtEachStart: with no grid, a group sends each
// request at its own intended start: 1,000/s on one worker at 1 ms gaps
// waits for no tick, so its latency from the intended start stays near
// its service time (a 20 ms grid would add about 10 ms).
func TestGroupWithoutGridSendsAtEachStart(t *testing.T) {
	f := &pairFactory{}
	res, err := Run(context.Background(), Config{Workers: 1, Duration: time.Second, Rate: 1000, Seed: 1}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Positive(t, f.ready.Load(), "the worker ran in a group")
	require.NotNil(t, tot.CorrectedLatency)
	assert.Less(t, tot.CorrectedLatency.P50, 5_000.0, "no wait for a tick")
}

// TestGroupMeasuresFromEachIntendedStart: on a 20 ms grid the requests
// due in a tick's 20 ms are sent at the tick, and each one's latency runs
// from its own intended start (half a tick on average), not the tick's.
func TestGroupMeasuresFromEachIntendedStart(t *testing.T) {
	f := &pairFactory{}
	res, err := Run(context.Background(), Config{Workers: 1, Duration: time.Second, Rate: 1000, Seed: 1,
		SendGrid: 20 * time.Millisecond}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Positive(t, f.ready.Load())
	require.NotNil(t, tot.CorrectedLatency)
	assert.Greater(t, tot.CorrectedLatency.P50, 5_000.0, "the wait for the tick counts: about 10 ms")
	assert.Greater(t, tot.CorrectedLatency.P50, tot.Latency.P50)
}

// TestGroupWaitsForLateReplies: replies slower than a worker's gap are
// waited for on the epoll set; each request goes when its reply came.
func TestGroupWaitsForLateReplies(t *testing.T) {
	f := &pairFactory{delay: 3 * time.Millisecond}
	res, err := Run(context.Background(), Config{Workers: 4, Duration: time.Second, Rate: 4000, Seed: 1,
		SendGrid: 250 * time.Microsecond}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, f.served.Load(), tot.Requests+tot.AfterDeadlineOps)
	assert.LessOrEqual(t, tot.Requests, int64(4*1000/3+8), "one request in flight per worker, 3 ms each at least")
	assert.Greater(t, tot.Requests, int64(100))
	assert.Positive(t, tot.Schedule.Behind, "the replies held the schedule up")
	assert.Zero(t, tot.Errors)
}

// TestGroupWorkerLeavesOnFailure: a worker whose connection drops leaves
// its group (counted, backing off on its own) while the others go on.
func TestGroupWorkerLeavesOnFailure(t *testing.T) {
	f := &pairFactory{breakAt: 100}
	res, err := Run(context.Background(), Config{Workers: 4, Duration: time.Second, Rate: 2000, Seed: 1,
		SendGrid: 250 * time.Microsecond}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Positive(t, tot.Errors, "the lost requests are counted")
	assert.InEpsilon(t, 2000, tot.Requests, 0.3, "the schedule went on: the failed workers on their own")
}

// TestGroupEndsWhenRepliesStop: a server that stops answering cannot hold
// the run: at the deadline's grace the requests in flight are abandoned
// and counted lost; an interruption ends it at once.
func TestGroupEndsWhenRepliesStop(t *testing.T) {
	f := &pairFactory{}
	time.AfterFunc(300*time.Millisecond, func() { f.stall.Store(true) })
	start := time.Now()
	res, err := Run(context.Background(), Config{Workers: 4, Duration: time.Second, Rate: 1000, Seed: 1,
		SendGrid: 250 * time.Microsecond, DeadlineGrace: 200 * time.Millisecond}, f)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Positive(t, res.Snapshot.Totals.Errors, "the requests in flight were abandoned")

	stalled := &pairFactory{}
	stalled.stall.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start = time.Now()
	res, err = Run(ctx, Config{Workers: 4, Duration: time.Hour, Rate: 1000, Seed: 1, SendGrid: 250 * time.Microsecond}, stalled)
	require.NoError(t, err)
	assert.Equal(t, StopInterrupted, res.StopReason)
	assert.Less(t, time.Since(start), 10*time.Second)
}

// TestGroupDoesNotAllocatePerRequest: a group's wake (wait, reads, sends,
// records) allocates nothing per request, on a grid or without one.
func TestGroupDoesNotAllocatePerRequest(t *testing.T) {
	for _, grid := range []time.Duration{250 * time.Microsecond, 0} {
		assertNoAllocPerRequest(t, Config{Workers: 4, Rate: 1e6, Duration: time.Hour, SendGrid: grid}, nopPollerFactory{})
	}
}

// TestGroupCountAfterWarmup: an op count after a warm-up holds in a group.
func TestGroupCountAfterWarmup(t *testing.T) {
	f := &pairFactory{}
	res, err := Run(context.Background(), Config{Workers: 4, Ops: 1000, Warmup: 200 * time.Millisecond, Rate: 4000, Seed: 3,
		SendGrid: 250 * time.Microsecond}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(1000), tot.Ops)
	assert.Equal(t, f.served.Load(), tot.Ops+tot.WarmupOps+tot.AfterDeadlineOps, "every request sent is counted once")
	assert.Positive(t, f.ready.Load())
}

func TestGroupsFor(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		rate    float64
		workers int
		want    int
	}{
		{1000, 50, 1},
		{50_000, 50, 1},
		{50_001, 50, min(2, cores)},
		{1e9, 50, min(50, cores)},
		{1e9, 1, 1},
	} {
		assert.Equal(t, tc.want, groupsFor(tc.rate, tc.workers), "%v/s over %d", tc.rate, tc.workers)
	}
}

// TestGroupCountSurvivesALeavingWorker: an op count holds when workers
// leave their group (a dropped connection) with their next request
// already claimed: it is sent on their own, not claimed twice.
func TestGroupCountSurvivesALeavingWorker(t *testing.T) {
	f := &pairFactory{breakAt: 50}
	res, err := Run(context.Background(), Config{Workers: 4, Ops: 1000, Rate: 4000, Seed: 3,
		SendGrid: 250 * time.Microsecond}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Positive(t, tot.LostOps, "the dropped connections lost their requests in flight")
	assert.Equal(t, int64(1000), tot.Ops+tot.LostOps, "every request of the count was sent once")
	assert.Equal(t, f.served.Load()+f.reconnected.Load(), tot.Ops+tot.LostOps+tot.AfterDeadlineOps)
}

// TestGroupLetsALargeReplyGoOnItsOwn: a worker whose replies Ready cannot
// tell whole (larger than its read buffer) leaves its group, so that its
// read holds no other worker up, and goes on its own: every request of
// the count is sent once and answered.
func TestGroupLetsALargeReplyGoOnItsOwn(t *testing.T) {
	f := &pairFactory{large: true}
	res, err := Run(context.Background(), Config{Workers: 4, Ops: 1000, Rate: 4000, Seed: 3,
		SendGrid: 250 * time.Microsecond}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(1000), tot.Ops)
	assert.Equal(t, f.served.Load(), tot.Ops+tot.AfterDeadlineOps, "every request sent is counted once")
	assert.Zero(t, tot.Errors)
	assert.Positive(t, f.ready.Load(), "the workers began in a group")
	assert.LessOrEqual(t, f.ready.Load(), int64(4*8), "and left it at their first whole reply")
}

// TestClosedGroupCountsEachRequestOnce: a closed loop's Pollers run in
// groups; with a count, every request is sent and answered once; with a
// duration, every request sent is counted once (in the run or after it).
func TestClosedGroupCountsEachRequestOnce(t *testing.T) {
	f := &pairFactory{}
	res, err := Run(context.Background(), Config{Workers: 8, Ops: 5000, Seed: 1}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Positive(t, f.ready.Load(), "the workers ran in a group")
	assert.Equal(t, int64(5000), tot.Ops)
	assert.Equal(t, f.served.Load(), tot.Ops, "each request sent once")
	assert.Zero(t, tot.Errors)
	assert.Nil(t, tot.CorrectedLatency, "a closed loop has no intended starts")

	f = &pairFactory{delay: 100 * time.Microsecond}
	res, err = Run(context.Background(), Config{Workers: 8, Duration: 300 * time.Millisecond, Seed: 1}, f)
	require.NoError(t, err)
	tot = res.Snapshot.Totals
	assert.Positive(t, f.ready.Load())
	assert.Greater(t, tot.Requests, int64(100))
	assert.Equal(t, f.served.Load(), tot.Requests+tot.AfterDeadlineOps, "every request sent is counted once")
}

// TestClosedGroupTimesEachRequest: a reply 3 ms slow is timed from its
// request's send to its read, as a worker of its own times it.
func TestClosedGroupTimesEachRequest(t *testing.T) {
	f := &pairFactory{delay: 3 * time.Millisecond}
	res, err := Run(context.Background(), Config{Workers: 2, Ops: 100, Seed: 1}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Positive(t, f.ready.Load())
	assert.Equal(t, int64(100), tot.Ops)
	assert.GreaterOrEqual(t, tot.Latency.Min, 3_000.0, "µs: no reply faster than the server's delay")
}

// TestClosedGroupCountSurvivesALeavingWorker: workers whose connection
// drops leave the group (their request counted lost) and go on, on their
// own: the count holds, and the others went on in the group.
func TestClosedGroupCountSurvivesALeavingWorker(t *testing.T) {
	f := &pairFactory{breakAt: 50}
	res, err := Run(context.Background(), Config{Workers: 4, Ops: 1000, Seed: 3}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(4), tot.LostOps, "each dropped connection lost its request in flight")
	assert.Equal(t, int64(1000), tot.Ops+tot.LostOps, "every request of the count was sent once")
	assert.Equal(t, f.served.Load()+f.reconnected.Load(), tot.Ops+tot.LostOps)
	assert.Positive(t, f.reconnected.Load(), "the workers went on, on their own")
}

// TestClosedGroupEndsWhenRepliesStop: a server that stops answering
// cannot hold a closed group's run: at the deadline's grace the requests
// in flight are abandoned and counted lost; an interruption ends it.
func TestClosedGroupEndsWhenRepliesStop(t *testing.T) {
	f := &pairFactory{}
	time.AfterFunc(200*time.Millisecond, func() { f.stall.Store(true) })
	start := time.Now()
	res, err := Run(context.Background(), Config{Workers: 4, Duration: 500 * time.Millisecond, Seed: 1,
		DeadlineGrace: 200 * time.Millisecond}, f)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Positive(t, f.ready.Load())
	assert.Equal(t, int64(4), res.Snapshot.Totals.LostOps, "the requests in flight were abandoned")

	stalled := &pairFactory{}
	stalled.stall.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start = time.Now()
	res, err = Run(ctx, Config{Workers: 4, Duration: time.Hour, Seed: 1}, stalled)
	require.NoError(t, err)
	assert.Equal(t, StopInterrupted, res.StopReason)
	assert.Less(t, time.Since(start), 10*time.Second)
}

// TestGroupGivesUpAtTheTimeout: a request a group waits on is given up
// once it has waited RequestTimeout (within 100 ms after), in a closed
// and in an open loop, and counted lost with the worker's error; the run
// goes on.
func TestGroupGivesUpAtTheTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for _, rate := range []float64{0, 1000} {
		f := &pairFactory{}
		f.stall.Store(true)
		res, err := Run(context.Background(), Config{Workers: 4, Duration: time.Second, Seed: 1, Rate: rate,
			RequestTimeout: timeout}, f)
		require.NoError(t, err)
		require.Len(t, f.waited, 4, "rate %v: each worker's first request", rate)
		for _, w := range f.waited {
			assert.GreaterOrEqual(t, w, timeout)
			assert.Less(t, w, timeout+100*time.Millisecond)
		}
		tot := res.Snapshot.Totals
		assert.Equal(t, int64(4), tot.LostOps)
		assert.Positive(t, f.reconnected.Load(), "the workers went on")
		if rate > 0 {
			sc := tot.Schedule
			assert.Equal(t, int64(1000), sc.Sent+sc.NotSent, "every request of the schedule sent or counted as not sent")
		}
		require.NotEmpty(t, res.Snapshot.Errors)
		assert.Equal(t, "timeout", res.Snapshot.Errors[0].Message)
	}
}

// TestClosedGroupCountAfterWarmup: an op count after a warm-up holds.
func TestClosedGroupCountAfterWarmup(t *testing.T) {
	f := &pairFactory{delay: 50 * time.Microsecond}
	res, err := Run(context.Background(), Config{Workers: 4, Ops: 1000, Warmup: 100 * time.Millisecond, Seed: 3}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(1000), tot.Ops)
	assert.Positive(t, tot.WarmupOps)
	assert.Equal(t, f.served.Load(), tot.Ops+tot.WarmupOps+tot.AfterDeadlineOps, "every request sent is counted once")
}

// TestClosedGroupLetsALargeReplyGoOnItsOwn: as in an open loop's group, a
// worker whose reply Ready cannot tell whole leaves for a loop of its own.
func TestClosedGroupLetsALargeReplyGoOnItsOwn(t *testing.T) {
	f := &pairFactory{large: true}
	res, err := Run(context.Background(), Config{Workers: 4, Ops: 1000, Seed: 3}, f)
	require.NoError(t, err)
	tot := res.Snapshot.Totals
	assert.Equal(t, int64(1000), tot.Ops)
	assert.Equal(t, f.served.Load(), tot.Ops, "every request sent is counted once")
	assert.Zero(t, tot.Errors)
	assert.LessOrEqual(t, f.ready.Load(), int64(4*8), "they left the group at their first whole reply")
}

// TestClosedGroupDoesNotAllocatePerRequest: a closed group's wait, reads,
// sends and records allocate nothing per request.
func TestClosedGroupDoesNotAllocatePerRequest(t *testing.T) {
	assertNoAllocPerRequest(t, Config{Workers: 4}, &pairFactory{})
}

// BenchmarkClosedGroup is a closed loop's group over 8 socket pairs, each
// answered by a goroutine of the test's: ns/req includes that fake
// server's reads and writes.
func BenchmarkClosedGroup(b *testing.B) {
	b.ReportAllocs()
	start := time.Now()
	res, err := Run(context.Background(), Config{Workers: 8, Ops: int64(b.N)}, &pairFactory{})
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N), "ns/req")
	require.NoError(b, err)
	require.Equal(b, int64(b.N), res.Snapshot.Totals.Ops)
}
