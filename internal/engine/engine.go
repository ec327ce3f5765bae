// Package engine runs a load: N workers, each with its own connection,
// repeat prepare (untimed) and exec (timed) until a duration, a request
// count, an error budget or the context ends; closed-loop (each worker
// sends when its last reply came) or open-loop (each request has an
// intended start from a Pacer, and latency is also measured from it). It
// knows nothing of any protocol; drivers supply workers.
//
// Run (this file) sets a run up and collects its result; mode.go names the
// modes (closed, window, open, deferred, stream, routed), each an executor
// in its own file; loop.go is what a worker's loop shares; on Linux, group_linux.go and closed_linux.go run the
// loops of workers whose connections the engine can poll in one goroutine
// per core (open and closed loop); schedule.go the clock-free pacers;
// stats are recorded worker-locally and merged on a tick (internal/stats).
package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/tairbench/tairbench/internal/stats"
)

// Step reports what one Exec did. The worker fills it; the engine resets it.
type Step struct {
	// Ops is the number of commands that got a reply.
	Ops int
	// Failed is the number of those replies that were errors.
	Failed int
	// Err is the first error message of the step (it may point into a reused buffer).
	Err []byte
	// Aborted is set when a transaction was not executed.
	Aborted bool
	// Op is the operation type of the request, an index into
	// Config.Operations (0 when the run has one type).
	Op int
	// Misses is the number of replies that found nothing (a null, an empty array).
	Misses int
	// BytesOut and BytesIn are the request's bytes sent and its replies'
	// bytes read (0 when the driver cannot tell).
	BytesOut, BytesIn int
	// Sent, when set, is when the command that replied was sent: a window
	// pipeline's reply answers a command an earlier Exec sent, and its
	// latency runs from that send, not from this Exec's start.
	Sent time.Time
	// Done, when set, is when the reply was whole in the client: a window
	// pipeline's reply already in its buffer came with an earlier read,
	// and was there when that read returned. The loop takes it as the
	// reply's time rather than reading the clock after Exec or Await.
	Done time.Time
	// Intended is, for a RoutedStreamer, the command's intended start:
	// the engine gives it to SendOne, and Await gives back that of the
	// command whose reply it read (replies come back out of order).
	Intended time.Time
	// Lost, when a failed Exec sets it, is the number of commands lost
	// with the connection (a window's commands in flight); 0 means the
	// request's own OpsPerRequest.
	Lost int
	// Retried is the commands the worker sent again (a bounded retry)
	// before the outcome Exec reports.
	Retried int
}

// Drainer is a worker that keeps commands in flight between Execs (a
// window pipeline). After its last Exec the engine calls Drain, which
// reads their replies by ctx's deadline; their commands are counted as
// completed after the run's end, as a request in flight at the deadline is.
type Drainer interface {
	Drain(ctx context.Context, s *Step) error
}

// SendStamper is a worker whose every Exec that succeeds sets Step.Sent
// (a window pipeline's: its reply answers a command an earlier Exec may
// have sent). The loop then does not read the clock before its Exec: the
// reading would be thrown away. Should Sent be missing all the same, the
// latency runs from the end of the worker's previous Exec, which is no
// later than this one's start.
type SendStamper interface {
	Worker
	// StampsSends marks the worker as a SendStamper.
	StampsSends()
}

// Worker sends requests on its own connection. Prepare builds the next
// request and is not timed; Exec sends it and reads every reply. A non-nil
// error from Exec means the request failed as a whole (connection lost,
// timeout); the worker should reconnect on its next Exec.
type Worker interface {
	Prepare()
	Exec(ctx context.Context, s *Step) error
	Close() error
}

// Yielder is a worker whose waits for a reply can stop at a time and go
// on. The engine gives it, once, the function its waits call at each
// interval's end (yield): it hands the loop's recordings of the ended
// interval to the aggregator, on the worker's own goroutine, and returns
// when the next interval ends. So a worker waiting on a stalled server
// does not hold back, from the interval's line, what it recorded before.
type Yielder interface {
	YieldTo(yield func(now time.Time) time.Time)
}

// Redialer is a worker that tells how many connections it made again
// after losing one (each accepted by the target): the engine asks when a
// request fails and when a reply comes after one did, and counts them as
// reconnects, whether or not a reply came on them.
type Redialer interface {
	// Redials is the connections made again since the last call.
	Redials() int
}

// Factory creates workers. NewWorker connects; an error there stops the
// run before it starts.
type Factory interface {
	NewWorker(ctx context.Context, id int, seed uint64) (Worker, error)
}

// Config controls a run.
type Config struct {
	// Workers is the number of concurrent workers (connections).
	Workers int
	// Duration is how long to measure (after warm-up); 0 means until Ops is reached.
	Duration time.Duration
	// Ops stops the run after this many commands (0: no limit). Like
	// OpsPerWorker, it counts only requests started after the warm-up.
	Ops int64
	// OpsPerWorker makes each worker send this many commands (rounded up
	// to whole requests) and stop, as memtier's --requests per client does
	// (0: no per-worker limit).
	OpsPerWorker int64
	// Background is the number of workers, the first ones by id, that the
	// budgets (Ops, OpsPerWorker) do not count: writers beside a counted
	// query mix, say. They run until the budgeted workers have all
	// stopped (or the deadline), then finish as at a deadline.
	Background int
	// OpsPerRequest is the number of commands one Exec sends (batch or pipeline size).
	OpsPerRequest int
	// Warmup runs load that is excluded from the results.
	Warmup time.Duration
	// MaxErrors stops the run once this many errors were counted (0: never).
	MaxErrors int64
	// Seed is the base seed; worker i gets a distinct seed derived from it.
	Seed uint64
	// Tick is the progress interval (default 1 s).
	Tick time.Duration
	// Progress, if set, is called once per tick from one goroutine.
	Progress func(stats.Progress)
	// ProgressTotals makes each Progress carry copies of the cumulative
	// histograms (a live metrics endpoint reads them).
	ProgressTotals bool
	// KeepSeconds keeps each second's histogram and reply slots in the
	// result's snapshot (Snapshot.Seconds): what scores events in a run.
	KeepSeconds bool
	// Started, when set, is called once the workers are connected, with
	// the time the measured part starts (second 0 of the series).
	Started func(measured time.Time)
	// Backoff is the pause after a failed request (default 20 ms).
	Backoff time.Duration
	// GiveUp, when set, stops the run (StopUnreachable) once no
	// connection has been usable for this long.
	GiveUp time.Duration
	// GiveUpSilent, when longer than GiveUp, is how long the run goes on
	// while every connection's latest request got no reply (timeouts: the
	// server accepts and does not answer, as in a pause) before it stops
	// the same way; a pause shorter than it is measured, not ended.
	GiveUpSilent time.Duration
	// DeadlineGrace bounds the wait for requests in flight at the deadline
	// (default 2 s, and never longer than RequestTimeout): past it they are
	// abandoned and counted as lost, so a server that stops answering
	// cannot hold the run past its end.
	DeadlineGrace time.Duration
	// RequestTimeout, above 0, is how long a request the engine waits on
	// itself (a Poller's, in a group) may go without its replies: past it
	// the worker's Expire gives it up (its connection dropped, dialled
	// again by the next request) and it is counted as lost. A worker that
	// waits on its own bounds its reads the same way (the driver's
	// timeout).
	RequestTimeout time.Duration
	// Rate, when above 0, makes the run open-loop: Rate requests per
	// second in all, each with an intended start from a schedule, latency
	// recorded from the intended start (corrected for coordinated
	// omission) as well as from the actual send (service time).
	Rate float64
	// Arrivals is ArrivalsConstant (default) or ArrivalsPoisson; with
	// Pacers, it names theirs (ArrivalsCaptured).
	Arrivals string
	// Pacers, when set, makes the run open-loop on the caller's own
	// schedule in place of Rate's (Rate, when given too, only sizes the
	// groups that run deferred workers on Linux).
	Pacers PacerSource
	// SchedulesEnd says the Pacers' schedules end on their own (a
	// replay's trace runs out): Duration only caps the run, which is
	// measured to its last reply, its stop reason StopExhausted.
	SchedulesEnd bool
	// Mode is the executor the workers run in (ModeAuto: the engine
	// chooses from the schedule and what the workers can do). A mode the
	// workers cannot run in is refused before the run starts.
	Mode Mode
	// SendGrid, above 0 in an open loop whose workers are Deferrers, is
	// the tick on which workers wake: each request is sent at the first
	// tick at or after its intended start (and measured from that start
	// all the same), the workers due in one tick wake together, and
	// replies are read at the next wake with the kernel's arrival time.
	// Cheaper per request; it also moves each arrival to its tick, which
	// changes the arrival process the server sees. 0 (or below): each
	// request is sent at its own intended start (Pollers, on Linux, in
	// groups that read replies at the next wake as on the grid; other
	// workers each wait for their replies).
	SendGrid time.Duration
	// Operations names the operation types of a mixed run (workers set
	// Step.Op); with two or more, every statistic is also kept per type.
	Operations []string
	// StartAt, when set, holds the start (warm-up and measurement) until
	// that wall-clock time, once the workers are connected, so that
	// clients on several machines measure the same seconds.
	StartAt time.Time
}

// preciseSleep turns off the precise sleeper (tests in a synctest bubble
// use the bubble's clock instead).
var preciseSleep = true

// ConnectError is what a worker's Exec returns when it could not
// (re)connect: no request was sent, so no command failed. Any other error
// from Exec means the request was lost on its connection.
type ConnectError struct{ Err error }

// Error returns the connect error's message.
func (e *ConnectError) Error() string { return e.Err.Error() }

// Unwrap returns the connect error.
func (e *ConnectError) Unwrap() error { return e.Err }

// ErrDone is returned by a worker's Exec when it has no more work (its
// input is exhausted). The worker stops; the run ends when all have.
var ErrDone = errors.New("engine: no more work")

// Result is what Run returns: the merged statistics and how the run ended.
type Result struct {
	Snapshot   stats.Snapshot
	StartedAt  time.Time
	Elapsed    time.Duration
	StopReason StopReason
	Seeds      Seeds
	CPU        CPUUsage
	// Availability is how long connections were lost, and the target unreachable.
	Availability Availability
	// SendGrid is the grid an open loop's requests were sent on (0: each
	// woken at its own intended start, or a closed loop).
	SendGrid time.Duration
	// Modes counts the workers that ran in each mode.
	Modes map[Mode]int
}

// WorkerSeed derives worker id's seed from a base seed (splitmix64), so
// that seeds are distinct and reproducible.
func WorkerSeed(base uint64, id int) uint64 {
	z := base + uint64(id+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// NewSeed returns a random base seed.
func NewSeed() uint64 { return rand.Uint64() }

// Run connects the workers, runs the load and returns the merged result.
// A cancelled ctx ends the run early; the partial result is still returned
// with StopInterrupted.
func Run(ctx context.Context, cfg Config, f Factory) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	res := &Result{Seeds: Seeds{Base: cfg.Seed}}
	// The workers' connections live under a context of the run's own, so
	// that ending the run at once also ends the requests in flight.
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	workers, err := connect(wctx, cfg, f, &res.Seeds)
	defer closeAll(workers)
	if err != nil {
		return nil, err
	}
	if err := waitForStart(ctx, cfg.StartAt); err != nil {
		return nil, err
	}
	r := newRunState(ctx, cfg, len(workers))
	r.abort = wcancel
	defer r.cancel()
	if cfg.Started != nil {
		cfg.Started(r.agg.Start())
	}
	done := r.start(workers, res.Seeds.Workers)
	r.supervise(ctx, done)
	r.collect(ctx, res)
	return res, nil
}

// withDefaults checks the configuration and fills in its defaults.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Workers <= 0 {
		return cfg, errors.New("engine: workers must be at least 1")
	}
	if cfg.Duration <= 0 && cfg.Ops <= 0 && cfg.OpsPerWorker <= 0 {
		return cfg, errors.New("engine: need a duration or an op count")
	}
	if cfg.Background < 0 || (cfg.Background >= cfg.Workers && cfg.Duration <= 0) {
		return cfg, errors.New("engine: an op count needs a worker it counts (background workers alone never end)")
	}
	if err := cfg.checkMode(); err != nil {
		return cfg, err
	}
	if cfg.OpsPerRequest <= 0 {
		cfg.OpsPerRequest = 1
	}
	if cfg.Tick <= 0 {
		cfg.Tick = time.Second
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 20 * time.Millisecond
	}
	return cfg, nil
}

// connect makes the workers, recording each one's seed.
func connect(ctx context.Context, cfg Config, f Factory, seeds *Seeds) ([]Worker, error) {
	workers := make([]Worker, cfg.Workers)
	for i := range workers {
		seed := WorkerSeed(cfg.Seed, i)
		seeds.Workers = append(seeds.Workers, seed)
		w, err := f.NewWorker(ctx, i, seed)
		if err != nil {
			return workers, fmt.Errorf("worker %d: %w", i, err)
		}
		workers[i] = w
		if err := paceable(cfg, w); err != nil {
			return workers, fmt.Errorf("worker %d: %w", i, err)
		}
	}
	return workers, nil
}

// paceable refuses a worker that cannot run in the run's mode (the
// engine's choice when the configuration leaves it).
func paceable(cfg Config, w Worker) error {
	m := cfg.Mode
	if m == ModeAuto {
		m = autoMode(cfg.open(), false, w)
	}
	return fits(m, w)
}

func closeAll(workers []Worker) {
	for _, w := range workers {
		if w != nil {
			_ = w.Close()
		}
	}
}

// waitForStart holds the start until at (--start-at), once connected.
func waitForStart(ctx context.Context, at time.Time) error {
	if at.IsZero() {
		return nil
	}
	wait := time.Until(at)
	if wait <= 0 {
		return nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("engine: interrupted while waiting for the start at %s", at.Format(time.RFC3339))
	}
}

// supervise runs until every worker has returned: it closes each tick's
// interval (shortly after it ends, once workers had a chance to flush it)
// and reports progress, ends the run at the deadline, on interruption or
// when the target stays unreachable.
func (r *runState) supervise(ctx context.Context, done <-chan struct{}) {
	cfg := &r.cfg
	var deadline <-chan time.Time
	if !r.deadline.IsZero() {
		t := time.NewTimer(time.Until(r.deadline))
		defer t.Stop()
		deadline = t.C
	}
	var giveUp <-chan time.Time
	if cfg.GiveUp > 0 {
		t := time.NewTicker(min(cfg.GiveUp/10, 100*time.Millisecond))
		defer t.Stop()
		giveUp = t.C
	}
	var lateStop <-chan time.Time
	grace := cfg.Tick / 10
	next := 0
	tick := time.NewTimer(time.Until(r.agg.Start().Add(cfg.Tick + grace)))
	defer tick.Stop()
	for {
		select {
		case <-done:
			if cfg.SchedulesEnd {
				r.stopReason.CompareAndSwap(nil, StopExhausted) // every schedule ran out
			}
			return
		case <-ctx.Done():
			r.stop(StopInterrupted)
		case <-deadline:
			r.finish(StopDuration)
			t := time.NewTimer(r.grace())
			defer t.Stop()
			lateStop = t.C
			deadline = nil
		case <-lateStop:
			r.abandoned.Store(true)
			r.stop(StopDuration) // blocked reads return at once; failed counts them
		case now := <-giveUp:
			if d, refused := r.avail.downFor(now); refused && d >= cfg.GiveUp || d >= max(cfg.GiveUp, cfg.GiveUpSilent) {
				r.stop(StopUnreachable)
			}
		case <-tick.C:
			if !r.deadline.IsZero() && !r.agg.Start().Add(time.Duration(next+1)*cfg.Tick).Before(r.deadline) && r.finishing.Load() {
				// The last second: requests in flight at the deadline may
				// still be counted in it; the result gives it whole.
				continue
			}
			p := r.agg.Tick(next)
			if cfg.Progress != nil {
				cfg.Progress(p)
			}
			next++
			tick.Reset(time.Until(r.agg.Start().Add(time.Duration(next+1)*cfg.Tick + grace)))
		}
	}
}

// collect fills res once every worker has returned.
func (r *runState) collect(ctx context.Context, res *Result) {
	end := time.Now()
	res.StartedAt = r.begin
	res.CPU = readCPU().Sub(r.cpu0)
	res.CPU.Wall = end.Sub(r.begin)
	res.StopReason = StopDuration
	if reason, ok := r.stopReason.Load().(StopReason); ok {
		res.StopReason = reason
	}
	if ctx.Err() != nil {
		res.StopReason = StopInterrupted
	}
	measured := end.Sub(r.agg.Start())
	_, stopped := r.stopReason.Load().(StopReason)
	if !r.deadline.IsZero() && (end.After(r.deadline) || r.cfg.open() && !stopped && ctx.Err() == nil && !r.cfg.SchedulesEnd) {
		// Past the deadline, or an open loop whose every schedule ended
		// in it: the duration was measured whole.
		measured = r.cfg.Duration
	}
	measured = max(measured, 0)
	res.Elapsed = measured
	res.Snapshot = r.agg.Snapshot(measured)
	res.Availability = r.avail.finish(r.agg.Start().Add(measured), measured, r.stillDown)
	res.Availability.SilentSeconds = append(res.Availability.SilentSeconds, res.Snapshot.Silent...)
	// The silent stretches, from the last reply before each to the first
	// after, less the unreachable time, to the millisecond: time the target
	// was unreachable for is not also unresponsive.
	res.Availability.UnresponsiveS = max(0, math.Round(float64(res.Snapshot.SilentTime.Milliseconds())-res.Availability.UnreachableMS)/1000)
	res.Snapshot.Totals.OpsPerRequest = r.cfg.OpsPerRequest
	if r.deferred {
		res.SendGrid = r.cfg.SendGrid
	}
	res.Modes = map[Mode]int{}
	for _, m := range r.modes {
		res.Modes[m]++
	}
}
