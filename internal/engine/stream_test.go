package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tairbench/tairbench/pkg/result"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamFactory's workers are window pipelines against a simulated
// server that answers each command service after its send, in order.
type streamFactory struct {
	window  int
	service time.Duration
	// late, when set, is how long after its reply came Await returns; it
	// then dates the reply by Step.Done.
	late  time.Duration
	mu    sync.Mutex
	most  int   // the most commands in flight on one worker at once
	order []int // the first worker's replies, by command number
}

type streamFake struct {
	f        *streamFactory
	id       int
	inFlight []time.Time // when each command's reply is ready, oldest first
	sentN    int
	repliedN int
}

func (f *streamFactory) NewWorker(_ context.Context, id int, _ uint64) (Worker, error) {
	return &streamFake{f: f, id: id}, nil
}

// run runs cfg on f's workers and returns the totals, with the schedule's.
func (f *streamFactory) run(t *testing.T, cfg Config) result.Totals {
	t.Helper()
	res, err := Run(context.Background(), cfg, f)
	require.NoError(t, err)
	require.NotNil(t, res.Snapshot.Totals.Schedule)
	return res.Snapshot.Totals
}

func (w *streamFake) Prepare()     {}
func (w *streamFake) Close() error { return nil }
func (w *streamFake) Window() int  { return w.f.window }
func (w *streamFake) PrepareOne()  {}

// Exec is the closed loop's: one command, one reply.
func (w *streamFake) Exec(ctx context.Context, s *Step) error {
	time.Sleep(w.f.service)
	s.Ops = 1
	return nil
}

func (w *streamFake) SendOne(s *Step) error {
	w.inFlight = append(w.inFlight, time.Now().Add(w.f.service))
	w.sentN++
	w.f.mu.Lock()
	w.f.most = max(w.f.most, len(w.inFlight))
	w.f.mu.Unlock()
	return nil
}

func (w *streamFake) Await(ctx context.Context, until time.Time, s *Step) (bool, error) {
	ready := w.inFlight[0]
	if !until.IsZero() && ready.After(until) {
		time.Sleep(time.Until(until))
		return false, nil
	}
	time.Sleep(time.Until(ready))
	if w.f.late > 0 {
		time.Sleep(w.f.late)
		s.Done = ready
	}
	w.inFlight = w.inFlight[1:]
	if w.id == 0 {
		w.f.mu.Lock()
		w.f.order = append(w.f.order, w.repliedN)
		w.f.mu.Unlock()
	}
	w.repliedN++
	s.Ops = 1
	return true, nil
}

func (w *streamFake) Drain(_ context.Context, s *Step) error {
	s.Ops = len(w.inFlight)
	w.inFlight = nil
	return nil
}

// A window under an open loop sends every command at its own intended
// start while earlier replies are outstanding, and times each reply from
// its own command: 1,000/s a worker with 3.5 ms replies keeps 4 in flight.
func TestStreamSendsOnScheduleWithRepliesOutstanding(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &streamFactory{window: 4, service: 3500 * time.Microsecond}
		tot := f.run(t, Config{Workers: 2, Duration: 2 * time.Second, Rate: 2000, Seed: 1})
		assert.InDelta(t, 4000, tot.Requests, 8, "the schedule's commands")
		assert.Equal(t, 4, f.most, "exactly the window in flight at the busiest")
		assert.Zero(t, tot.Schedule.Behind, "the window never held a command")
		assert.Zero(t, tot.Schedule.ClientLags)
		assert.InDelta(t, 3500, tot.Latency.P50, 50, "service time: from the command's own send")
		assert.InDelta(t, 3500, tot.CorrectedLatency.P99, 50, "sent on time, so the same from its intended start")
		for i, n := range f.order {
			require.Equal(t, i, n, "replies in order")
		}
	})
}

// routedFake is a streamFake as a RoutedStreamer: its Await gives back
// the Sent and Intended of the command it answers.
type routedFake struct {
	streamFake
	sent, intended []time.Time
}

type routedFactory struct{ *streamFactory }

func (f routedFactory) NewWorker(_ context.Context, id int, _ uint64) (Worker, error) {
	return &routedFake{streamFake: streamFake{f: f.streamFactory, id: id}}, nil
}

func (w *routedFake) Room() bool    { return len(w.inFlight) < w.f.window }
func (w *routedFake) InFlight() int { return len(w.inFlight) }

func (w *routedFake) SendOne(s *Step) error {
	w.sent, w.intended = append(w.sent, time.Now()), append(w.intended, s.Intended)
	return w.streamFake.SendOne(s)
}

func (w *routedFake) Await(ctx context.Context, until time.Time, s *Step) (bool, error) {
	got, err := w.streamFake.Await(ctx, until, s)
	if got {
		s.Sent, s.Intended = w.sent[0], w.intended[0]
		w.sent, w.intended = w.sent[1:], w.intended[1:]
	}
	return got, err
}

// A reply's Step.Done is its time, not the clock after Await: Await
// returning 1 ms late does not make the 3.5 ms replies 4.5 ms, over one
// connection or routed over several.
func TestStreamTakesDone(t *testing.T) {
	for _, routed := range []bool{false, true} {
		t.Run(fmt.Sprint(routed), func(t *testing.T) {
			simulated(t, func(t *testing.T) {
				f := &streamFactory{window: 4, service: 3500 * time.Microsecond, late: time.Millisecond}
				var wf Factory = f
				if routed {
					wf = routedFactory{f}
				}
				res, err := Run(context.Background(), Config{Workers: 1, Duration: time.Second, Rate: 200, Seed: 1}, wf)
				require.NoError(t, err)
				tot := res.Snapshot.Totals
				assert.InDelta(t, 200, tot.Requests, 2)
				assert.InDelta(t, 3500, tot.Latency.P50, 50)
				assert.InDelta(t, 3500, tot.Latency.Max, 50)
				assert.InDelta(t, 3500, tot.CorrectedLatency.P99, 50, "sent on time")
			})
		})
	}
}

// A window too small for the load holds commands: they go behind, each
// still timed from its own send (service) and its own intended start
// (corrected), and the window is never exceeded.
func TestStreamFullWindowGoesBehind(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &streamFactory{window: 2, service: 3500 * time.Microsecond}
		tot := f.run(t, Config{Workers: 1, Duration: 2 * time.Second, Rate: 1000, Seed: 1})
		assert.Equal(t, 2, f.most)
		assert.InDelta(t, 2000*2/3.5, tot.Requests, 8, "two per 3.5 ms, not the schedule's 1,000/s")
		assert.InDelta(t, 3500, tot.Latency.P99, 50, "service time stays the server's")
		assert.Greater(t, tot.CorrectedLatency.P99, 500_000.0, "the queue behind the window: up to 0.86 s")
		assert.Greater(t, tot.Schedule.Behind, tot.Requests*9/10, "held by the window, not the client's lag")
		assert.Zero(t, tot.Schedule.ClientLags)
	})
}

// At the end of an op count, the replies in flight are read and measured;
// none is sent past the count.
func TestStreamCountReadsItsTail(t *testing.T) {
	simulated(t, func(t *testing.T) {
		f := &streamFactory{window: 8, service: 5 * time.Millisecond}
		tot := f.run(t, Config{Workers: 2, Ops: 300, Rate: 4000, Duration: time.Hour, Seed: 1})
		assert.Equal(t, int64(300), tot.Ops)
		assert.Zero(t, tot.AfterDeadlineOps)
		assert.Equal(t, 8, f.most)
	})
}

// nopStreamer answers every command at once.
type nopStreamer struct{ n int }

func (*nopStreamer) Prepare()                             {}
func (*nopStreamer) Close() error                         { return nil }
func (*nopStreamer) Exec(context.Context, *Step) error    { return nil }
func (*nopStreamer) Window() int                          { return 4 }
func (*nopStreamer) PrepareOne()                          {}
func (w *nopStreamer) SendOne(*Step) error                { w.n++; return nil }
func (w *nopStreamer) Drain(context.Context, *Step) error { return nil }
func (w *nopStreamer) Await(_ context.Context, until time.Time, s *Step) (bool, error) {
	if w.n == 0 {
		return false, nil
	}
	w.n--
	s.Ops = 1
	return true, nil
}

type nopStreamerFactory struct{}

func (nopStreamerFactory) NewWorker(context.Context, int, uint64) (Worker, error) {
	return &nopStreamer{}, nil
}

func TestStreamDoesNotAllocatePerRequest(t *testing.T) {
	assertNoAllocPerRequest(t, Config{Workers: 1, Rate: 1e12, Duration: time.Hour}, nopStreamerFactory{})
}
