// Package engine runs a closed-loop load: N workers, each with its own
// connection, repeat prepare (untimed) and exec (timed) until a duration, a
// request count, an error budget or the context ends. It knows nothing of
// any protocol; drivers supply workers.
package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
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
	// Ops stops the run after this many commands (0: no limit).
	Ops int64
	// OpsPerWorker makes each worker send this many commands (rounded up
	// to whole requests) and stop, as memtier's --requests per client does
	// (0: no per-worker limit).
	OpsPerWorker int64
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
	// Backoff is the pause after a failed request (default 20 ms).
	Backoff time.Duration
	// GiveUp, when set, stops the run (result.StopUnreachable) once no
	// connection has been usable for this long.
	GiveUp time.Duration
	// Rate, when above 0, makes the run open-loop: Rate requests per
	// second in all, each with an intended start from a schedule, latency
	// recorded from the intended start (corrected for coordinated
	// omission) as well as from the actual send (service time).
	Rate float64
	// Arrivals is ArrivalsConstant (default) or ArrivalsPoisson.
	Arrivals string
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
	StopReason string
	Seeds      result.Seeds
	CPU        CPUUsage
	// Availability is how long connections were lost, and the target unreachable.
	Availability result.Availability
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
// with result.StopInterrupted.
func Run(ctx context.Context, cfg Config, f Factory) (*Result, error) {
	if cfg.Workers <= 0 {
		return nil, errors.New("engine: workers must be at least 1")
	}
	if cfg.Duration <= 0 && cfg.Ops <= 0 && cfg.OpsPerWorker <= 0 {
		return nil, errors.New("engine: need a duration or an op count")
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
	res := &Result{Seeds: result.Seeds{Base: cfg.Seed}}
	workers := make([]Worker, cfg.Workers)
	defer func() {
		for _, w := range workers {
			if w != nil {
				_ = w.Close()
			}
		}
	}()
	for i := range workers {
		seed := WorkerSeed(cfg.Seed, i)
		res.Seeds.Workers = append(res.Seeds.Workers, seed)
		w, err := f.NewWorker(ctx, i, seed)
		if err != nil {
			return nil, fmt.Errorf("worker %d: %w", i, err)
		}
		workers[i] = w
	}

	if !cfg.StartAt.IsZero() {
		if wait := time.Until(cfg.StartAt); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, fmt.Errorf("engine: interrupted while waiting for the start at %s", cfg.StartAt.Format(time.RFC3339))
			}
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stopReason atomic.Value
	// stop ends the run at once: requests in flight are abandoned
	// (interrupt, error budget, unreachable target).
	stop := func(reason string) {
		stopReason.CompareAndSwap(nil, reason)
		cancel()
	}
	// finish ends the run when the requests in flight complete: at the
	// deadline they are counted as completed after it, so that the server's
	// count and the client's agree.
	var finishing atomic.Bool
	halt := make(chan struct{})
	var haltOnce sync.Once
	finish := func(reason string) {
		stopReason.CompareAndSwap(nil, reason)
		finishing.Store(true)
		haltOnce.Do(func() { close(halt) })
	}

	cpu0 := readCPU()
	begin := time.Now()
	res.StartedAt = begin
	agg := stats.NewAggregator(begin.Add(cfg.Warmup), cfg.Tick)
	if cfg.Rate > 0 {
		agg.EnableCorrected()
	}
	agg.SetOperations(cfg.Operations)
	var deadline time.Time
	if cfg.Duration > 0 {
		deadline = agg.Start().Add(cfg.Duration)
	}
	var steps int64 = -1
	if cfg.Ops > 0 {
		steps = (cfg.Ops + int64(cfg.OpsPerRequest) - 1) / int64(cfg.OpsPerRequest)
	}
	var workerSteps int64 = -1
	if cfg.OpsPerWorker > 0 {
		workerSteps = (cfg.OpsPerWorker + int64(cfg.OpsPerRequest) - 1) / int64(cfg.OpsPerRequest)
	}
	var claimed, errCount atomic.Int64
	avail := newAvailability(agg.Start(), len(workers))
	stillDown := make([]bool, len(workers))

	var wg sync.WaitGroup
	for id, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			down := false
			defer func() { stillDown[id] = down }()
			rec := agg.NewRecorder()
			defer rec.Flush()
			var sched *schedule
			var timer *time.Timer
			sleepShort := time.Sleep
			if cfg.Rate > 0 {
				sched = newSchedule(begin, cfg.Rate, len(workers), id, cfg.Arrivals == ArrivalsPoisson, res.Seeds.Workers[id])
				timer = time.NewTimer(time.Hour)
				defer timer.Stop()
				if preciseSleep {
					sl := newSleeper()
					defer sl.close()
					sleepShort = sl.sleep
				}
			}
			var st Step
			var intended, prevDone time.Time
			var mine int64
			for runCtx.Err() == nil && !finishing.Load() {
				if workerSteps >= 0 {
					if mine >= workerSteps {
						stopReason.CompareAndSwap(nil, result.StopCount)
						return
					}
					mine++
				}
				if steps >= 0 && claimed.Add(1) > steps {
					// The budget is spent: this worker stops, the others
					// finish the requests they claimed (cancelling them
					// would drop requests the server may have run).
					stopReason.CompareAndSwap(nil, result.StopCount)
					return
				}
				if sched != nil {
					intended = sched.take()
					if !deadline.IsZero() && !intended.Before(deadline) {
						finish(result.StopDuration) // nothing more is scheduled inside the run
						return
					}
					if wait := time.Until(intended); wait > 0 {
						// A timer for all but the last 2 ms, then a precise sleep.
						if wait > 2*time.Millisecond {
							timer.Reset(wait - 2*time.Millisecond)
							select {
							case <-timer.C:
							case <-runCtx.Done():
								return
							case <-halt:
								return
							}
						}
						if rest := time.Until(intended); rest > 0 {
							sleepShort(rest)
						}
						if woke := time.Now(); woke.Sub(intended) > lateAfter {
							rec.ClientLag(woke, woke.Sub(intended))
						}
					} else if late := -wait; late > lateAfter {
						if prevDone.Sub(intended) > lateAfter {
							rec.Behind(intended, late) // the previous reply held this worker up
						} else {
							rec.ClientLag(intended.Add(late), late) // the worker was free but not running
						}
					}
				}
				w.Prepare()
				st = Step{}
				t0 := time.Now()
				err := w.Exec(runCtx, &st)
				t1 := time.Now()
				if err != nil {
					if errors.Is(err, ErrDone) {
						stopReason.CompareAndSwap(nil, result.StopExhausted)
						return
					}
					if runCtx.Err() != nil {
						return // interrupted mid-request: not an error of the target
					}
					if !deadline.IsZero() && t1.After(deadline) {
						finish(result.StopDuration) // past the measured time
						return
					}
					var ce *ConnectError
					if errors.As(err, &ce) {
						rec.Error(t1, stats.Connect, []byte(err.Error()), 0)
					} else {
						rec.Error(t1, stats.Lost, []byte(err.Error()), cfg.OpsPerRequest)
						rec.LostOp(t1, st.Op, cfg.OpsPerRequest)
					}
					if !down {
						down = true
						avail.markDown(id, t1)
					}
					if cfg.MaxErrors > 0 && errCount.Add(1) >= cfg.MaxErrors {
						stop(result.StopMaxErrors)
					}
					select {
					case <-runCtx.Done():
					case <-halt:
					case <-time.After(cfg.Backoff):
					}
					continue
				}
				if down {
					down = false
					avail.markUp(id, t1)
				}
				if !deadline.IsZero() && t1.After(deadline) {
					rec.Late(st.Ops)
					finish(result.StopDuration)
					return
				}
				rec.Record(t1, t1.Sub(t0), st.Ops, st.Failed)
				var corrected time.Duration
				if sched != nil {
					corrected = t1.Sub(intended)
					rec.RecordCorrected(corrected)
					prevDone = t1
				}
				rec.RecordOp(st.Op, t1.Sub(t0), corrected, st.Ops, st.Failed, st.Misses)
				rec.Bytes(st.Op, st.BytesOut, st.BytesIn)
				if st.Aborted {
					rec.Aborted()
				}
				if st.Failed > 0 || st.Err != nil {
					rec.Error(t1, stats.Reply, st.Err, st.Failed)
					if cfg.MaxErrors > 0 && errCount.Add(int64(max(st.Failed, 1))) >= cfg.MaxErrors {
						stop(result.StopMaxErrors)
					}
				}
			}
		}()
	}

	// The ticker closes interval k shortly after it ends, once workers had a
	// chance to flush it, and reports progress.
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	var timer <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timer = t.C
	}
	var giveUp <-chan time.Time
	if cfg.GiveUp > 0 {
		t := time.NewTicker(min(cfg.GiveUp/10, 100*time.Millisecond))
		defer t.Stop()
		giveUp = t.C
	}
	grace := cfg.Tick / 10
	next := 0
	tick := time.NewTimer(time.Until(agg.Start().Add(cfg.Tick + grace)))
	defer tick.Stop()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-ctx.Done():
			stop(result.StopInterrupted)
		case <-timer:
			finish(result.StopDuration)
		case now := <-giveUp:
			if avail.unreachableFor(now) >= cfg.GiveUp {
				stop(result.StopUnreachable)
			}
		case <-tick.C:
			p := agg.Tick(next)
			if cfg.Progress != nil {
				cfg.Progress(p)
			}
			next++
			tick.Reset(time.Until(agg.Start().Add(time.Duration(next+1)*cfg.Tick + grace)))
		}
	}
	end := time.Now()
	res.CPU = readCPU().Sub(cpu0)
	res.CPU.Wall = end.Sub(begin)
	if r, ok := stopReason.Load().(string); ok {
		res.StopReason = r
	} else {
		res.StopReason = result.StopDuration
	}
	if ctx.Err() != nil {
		res.StopReason = result.StopInterrupted
	}
	measured := end.Sub(agg.Start())
	if !deadline.IsZero() && end.After(deadline) {
		measured = cfg.Duration
	}
	if measured < 0 {
		measured = 0
	}
	res.Elapsed = measured
	res.Snapshot = agg.Snapshot(measured)
	res.Availability = avail.finish(agg.Start().Add(measured), measured, stillDown)
	res.Availability.SilentSeconds = append(res.Availability.SilentSeconds, res.Snapshot.Silent...)
	res.Snapshot.Totals.OpsPerRequest = cfg.OpsPerRequest
	return res, nil
}
