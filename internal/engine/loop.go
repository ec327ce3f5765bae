package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/stats"
)

// runState is what a run's worker loops share: the budgets, the ways the
// run ends, the statistics they record into and the availability they
// report. Loops touch it only through atomics and their own slots.
type runState struct {
	cfg    Config
	ctx    context.Context // the loops' context: cancelled by stop
	cancel context.CancelFunc
	// stopReason is the first reason given to stop or finish.
	stopReason atomic.Value
	// finishing and halt end the run when the requests in flight complete.
	finishing atomic.Bool
	halt      chan struct{}
	haltOnce  sync.Once
	// abandoned is set when requests still in flight DeadlineGrace after
	// the deadline were given up.
	abandoned atomic.Bool
	// abort ends the workers' connections' context (nil: none).
	abort context.CancelFunc

	cpu0     CPUUsage
	begin    time.Time
	agg      *stats.Aggregator
	deadline time.Time // zero without a duration
	end      time.Duration
	// steps and workerSteps are the request budgets (-1: none).
	steps, workerSteps int64
	claimed, errCount  atomic.Int64
	// budgeted counts the loops the budgets count that are still running.
	budgeted  atomic.Int64
	avail     *availability
	stillDown []bool
	// modes is each worker's mode, set when its loop is made.
	modes []Mode
	// deferred says the open loop's workers are Deferrers woken on the
	// send grid; beginMono is begin on CLOCK_MONOTONIC, for their timers.
	deferred  bool
	beginMono int64
}

func newRunState(ctx context.Context, cfg Config, workers int) *runState {
	r := &runState{cfg: cfg, halt: make(chan struct{}), steps: -1, workerSteps: -1, stillDown: make([]bool, workers), modes: make([]Mode, workers)}
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.cpu0 = readCPU()
	r.begin = time.Now()
	r.beginMono = monoNow()
	r.agg = stats.NewAggregator(r.begin.Add(cfg.Warmup), cfg.Tick)
	if cfg.open() {
		r.agg.EnableCorrected()
	}
	r.agg.SetOperations(cfg.Operations)
	if cfg.ProgressTotals {
		r.agg.KeepTotals()
	}
	if cfg.KeepSeconds {
		r.agg.KeepSeconds()
	}
	if cfg.Duration > 0 {
		r.deadline = r.agg.Start().Add(cfg.Duration)
		r.end = cfg.Warmup + cfg.Duration
	}
	perRequest := int64(cfg.OpsPerRequest)
	if cfg.Ops > 0 {
		r.steps = (cfg.Ops + perRequest - 1) / perRequest
	}
	if cfg.OpsPerWorker > 0 {
		r.workerSteps = (cfg.OpsPerWorker + perRequest - 1) / perRequest
	}
	r.avail = newAvailability(r.agg.Start(), workers)
	return r
}

// grace is the wait for requests in flight at the deadline: no longer
// than a request may wait (RequestTimeout).
func (r *runState) grace() time.Duration {
	g := 2 * time.Second
	if r.cfg.DeadlineGrace > 0 {
		g = r.cfg.DeadlineGrace
	}
	if t := r.cfg.RequestTimeout; t > 0 {
		g = min(g, t)
	}
	return g
}

// stop ends the run at once: requests in flight are abandoned (interrupt,
// error budget, unreachable target).
func (r *runState) stop(reason StopReason) {
	r.stopReason.CompareAndSwap(nil, reason)
	r.cancel()
	if r.abort != nil {
		r.abort()
	}
}

// finish ends the run when the requests in flight complete: at the deadline
// they are counted as completed after it, so that the server's count and
// the client's agree.
func (r *runState) finish(reason StopReason) {
	r.stopReason.CompareAndSwap(nil, reason)
	r.finishing.Store(true)
	r.haltOnce.Do(func() { close(r.halt) })
}

// start runs one loop per worker; the channel closes when all have
// returned.
func (r *runState) start(workers []Worker, seeds []uint64) <-chan struct{} {
	r.startDeferred(workers)
	r.budgeted.Store(int64(len(workers) - min(r.cfg.Background, len(workers))))
	var wg sync.WaitGroup
	if !r.startGroups(workers, seeds, &wg) {
		// Off the grid, workers defer their reads only in groups: on its
		// own each waits for its replies.
		r.deferred = r.deferred && r.cfg.SendGrid > 0
		for id, w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := r.newLoop(id, w, seeds[id], true)
				defer l.close()
				l.run()
				r.loopDone(id)
				l.drain()
			}()
		}
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// startDeferred decides whether an open loop's workers defer their reads:
// every worker a Deferrer. On Linux they then run in groups (startGroups),
// on the send grid or, without one, each request at its own intended
// start; elsewhere, on the grid, each worker sleeps on a timer of its own
// armed at its tick's absolute time (beginMono), so that the workers due
// in one tick wake together.
func (r *runState) startDeferred(workers []Worker) {
	if !r.cfg.open() || r.cfg.Mode != ModeAuto && r.cfg.Mode != ModeDeferred {
		return
	}
	for _, w := range workers {
		if _, ok := w.(Deferrer); !ok {
			return
		}
	}
	r.deferred = true
}

// loop is one worker's loop: it paces (open loop), prepares, sends and
// records into its own recorder, which the aggregator merges on its tick.
type loop struct {
	r   *runState
	id  int
	w   Worker
	rec *stats.Recorder
	// mode is the executor the loop runs in.
	mode Mode
	// pacer is nil in a closed loop.
	pacer      Pacer
	timer      *time.Timer
	sleeper    *sleeper
	sleepShort func(time.Duration)
	// sent counts the requests taken from the pacer; mine the worker's own
	// budget (OpsPerWorker).
	sent, mine int64
	down       bool
	// warm is set once the warm-up is over; uncounted is the requests the
	// budgets did not count because they started in it, not landed yet
	// (a deferring worker has two at a time: requests land in order, and
	// those started in the warm-up land first).
	warm               bool
	uncounted          int
	intended, prevDone time.Time
	// downUntil is when the connection last came back after a failure
	// (the end of its back-off, then the first reply): a request due
	// before it that went late waited for a connection, not a reply.
	downUntil time.Time
	st        Step
	// held says the next request is claimed and not sent yet (its group
	// claims it at the previous send): a worker leaving its group sends it
	// without claiming another.
	held bool
	// pending says a deferring worker's request was started at t0 and
	// its replies are not read yet.
	pending bool
	t0      time.Time
	// stamps: the worker is a SendStamper (exec reads no start time);
	// last is when its previous Exec ended.
	stamps bool
	last   time.Time
}

// newLoop makes worker id's loop; own says it sleeps on timers of its own
// (a group's worker sleeps on the group's until it leaves it).
func (r *runState) newLoop(id int, w Worker, seed uint64, own bool) *loop {
	l := &loop{r: r, id: id, w: w, rec: r.agg.NewRecorder(), sleepShort: time.Sleep}
	_, l.stamps = w.(SendStamper)
	if y, ok := w.(Yielder); ok {
		y.YieldTo(l.yield)
	}
	l.mode = r.modeOf(w)
	r.modes[id] = l.mode
	if l.mode.Open() {
		l.pacer = r.cfg.pacer(id, len(r.stillDown), seed, r.end)
		if own {
			l.ownSleep()
		}
	}
	return l
}

// ownSleep gives an open loop's worker its own timers.
func (l *loop) ownSleep() {
	l.timer = time.NewTimer(time.Hour)
	if preciseSleep {
		l.sleeper = newSleeper()
		l.sleepShort = l.sleeper.sleep
	}
}

func (l *loop) close() {
	l.r.stillDown[l.id] = l.down
	if l.pacer != nil && l.r.end > 0 {
		l.accountSchedule()
	}
	l.rec.Flush()
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.sleeper != nil {
		l.sleeper.close()
	}
}

// run sends requests until the run ends or this worker's budget is
// spent, in the worker's mode.
func (l *loop) run() {
	switch l.mode {
	case ModeDeferred:
		l.runDeferred(l.w.(Deferrer))
	case ModeRouted:
		l.runRouted(l.w.(RoutedStreamer))
	case ModeStream:
		l.runStream(l.w.(Streamer))
	case ModeOpen:
		l.runOpen()
	default:
		l.runClosed()
	}
}

// accountSchedule counts, as the open loop ends, its requests of the
// measured time sent and those due in it (up to the run's end, or its
// stop) never sent, so that the two add up to its schedule.
func (l *loop) accountSchedule() {
	r := l.r
	end := min(l.scheduleEnd(), time.Since(r.begin))
	sent := uint64(l.sent)
	due := dueBefore(l.pacer, end) // forward first: the pacer is at sent
	early := uint64(0)             // due in the warm-up
	if r.cfg.Warmup > 0 {
		early = dueBefore(l.pacer, r.cfg.Warmup)
	}
	notSent := due - min(due, max(sent, early))
	l.rec.Schedule(int64(sent-min(sent, early)), int64(notSent), l.down)
}

// noteRedials counts the connections a Redialer made again, at t1; false
// when the worker is not one.
func (l *loop) noteRedials(t1 time.Time) bool {
	rd, ok := l.w.(Redialer)
	if ok {
		l.r.avail.reconnected(rd.Redials(), t1)
	}
	return ok
}

// yield hands the recordings of the intervals ended by now to the
// aggregator and returns when the interval that holds now ends (Yielder).
func (l *loop) yield(now time.Time) time.Time {
	l.rec.FlushIfDue(now)
	return l.r.agg.IntervalEnd(now)
}

// now reads the run's monotonic clock once (time.Now reads the wall clock
// too, a second system clock read): the start's wall time plus the time
// since. Good for timing requests against each other and the run's marks;
// not for comparing with a kernel's wall-clock stamp (the wall clock may
// be slewed during the run), which the deferred paths do with time.Now.
func (r *runState) now() time.Time { return r.begin.Add(time.Since(r.begin)) }

// replyTime is when the step's reply came: its Step.Done, or now.
func (l *loop) replyTime() time.Time {
	if !l.st.Done.IsZero() {
		return l.st.Done
	}
	return l.r.now()
}

// exec sends the prepared request, waits for its replies and records
// them; false when the loop should end.
func (l *loop) exec() bool {
	r := l.r
	l.st = Step{}
	t0 := l.last
	if !l.stamps || t0.IsZero() {
		t0 = r.now()
	}
	l.rec.FlushIfDue(t0) // the last interval's recordings, before a wait that may outlast the next
	err := l.w.Exec(r.ctx, &l.st)
	t1 := l.replyTime()
	l.last = t1
	if err != nil {
		return l.failed(err, t1)
	}
	return l.replied(t0, t1)
}

// loopDone notes that worker id's loop ended: when it was the last one
// the budgets count, and there is a budget, the background workers finish.
func (r *runState) loopDone(id int) {
	if id < r.cfg.Background || (r.steps < 0 && r.workerSteps < 0) {
		return
	}
	if r.budgeted.Add(-1) == 0 {
		r.finish(StopCount)
	}
}

// claim takes one request from the budgets; false when they are spent.
// Requests of the warm-up and of background workers are not counted.
func (l *loop) claim() bool {
	r := l.r
	if l.held {
		l.held = false // a group claimed it before the worker left
		return true
	}
	if l.id < r.cfg.Background {
		return true
	}
	if !l.pastWarmup() {
		l.uncounted++ // counted if its reply lands after the warm-up
		return true
	}
	if r.workerSteps >= 0 {
		if l.mine >= r.workerSteps {
			r.stopReason.CompareAndSwap(nil, StopCount)
			return false
		}
		l.mine++
	}
	if r.steps >= 0 && r.claimed.Add(1) > r.steps {
		// The budget is spent: this worker stops, the others finish the
		// requests they claimed (cancelling them would drop requests the
		// server may have run).
		r.stopReason.CompareAndSwap(nil, StopCount)
		return false
	}
	return true
}

// pastWarmup says the warm-up is over (it reads the clock only until then).
func (l *loop) pastWarmup() bool {
	if l.warm {
		return true
	}
	if l.r.cfg.Warmup <= 0 || !time.Now().Before(l.r.agg.Start()) {
		l.warm = true
	}
	return l.warm
}

// countLanded counts, in the budgets, a request started in the warm-up
// whose reply came after it: the results count it as measured.
func (l *loop) countLanded(t1 time.Time) {
	if l.uncounted == 0 {
		return
	}
	l.uncounted--
	if t1.Before(l.r.agg.Start()) {
		return
	}
	l.mine++
	l.r.claimed.Add(1)
}

// failed counts a request that failed as a whole and backs off; false when
// the loop should end.
func (l *loop) failed(err error, t1 time.Time) bool {
	r := l.r
	l.countLanded(t1)
	if errors.Is(err, ErrDone) {
		r.stopReason.CompareAndSwap(nil, StopExhausted)
		return false
	}
	if r.ctx.Err() != nil {
		l.abandon(t1) // the run stopped under it: counted, never dropped
		return false
	}
	var ce *ConnectError
	isConnect := errors.As(err, &ce)
	if !r.deadline.IsZero() && t1.After(r.deadline) {
		if !isConnect {
			l.lostAtEnd(err.Error()) // in flight at the deadline: sent, so counted
		}
		r.finish(StopDuration) // past the measured time
		return false
	}
	if isConnect {
		l.rec.Error(t1, stats.Connect, []byte(err.Error()), 0)
	} else {
		n := r.cfg.OpsPerRequest
		if l.st.Lost > 0 {
			n = l.st.Lost
		}
		l.rec.LostOp(t1, l.st.Op, n)
		l.rec.Error(t1, stats.Lost, []byte(err.Error()), n)
	}
	l.noteRedials(t1)
	if !l.down {
		l.down = true
		r.avail.markDown(l.id, t1, isConnect)
	} else {
		r.avail.failedAgain(l.id, t1, isConnect)
	}
	if r.cfg.MaxErrors > 0 && r.errCount.Add(1) >= r.cfg.MaxErrors {
		r.stop(StopMaxErrors)
	}
	select {
	case <-r.ctx.Done():
	case <-r.halt:
	case <-time.After(r.cfg.Backoff):
	}
	// The target, not the client, held up what fell due in the failure
	// and its back-off: those sends count behind, not as client lags.
	l.prevDone = time.Now()
	l.downUntil = l.prevDone
	return true
}

// abandon counts a request the run gave up when it stopped (error budget
// spent, target unreachable, or no reply within the grace after the
// deadline) as lost, in the measured time's last second when it ended
// after it. A request an interruption cut is the user's doing, not the
// target's, and is not counted.
func (l *loop) abandon(t1 time.Time) {
	r := l.r
	reason, _ := r.stopReason.Load().(StopReason)
	if reason == StopInterrupted || reason == "" && !r.abandoned.Load() {
		return
	}
	why := "the run stopped (" + string(reason) + ")"
	if r.abandoned.Load() {
		why = fmt.Sprintf("no reply %s after the run's end", r.grace())
	}
	if !r.deadline.IsZero() && !t1.Before(r.deadline) {
		t1 = r.deadline.Add(-time.Nanosecond)
	}
	l.lost(t1, "abandoned: "+why)
}

// lostAtEnd counts a request in flight at the deadline that failed after
// it (no reply within the request timeout, a reset) as lost, in the
// measured time's last second: the server may have run it.
func (l *loop) lostAtEnd(msg string) {
	l.lost(l.r.deadline.Add(-time.Nanosecond), msg)
}

// lost counts the step's commands (a window's in flight, or the request's
// own) as lost at t1 with msg.
func (l *loop) lost(t1 time.Time, msg string) {
	n := l.r.cfg.OpsPerRequest
	if l.st.Lost > 0 {
		n = l.st.Lost // a window's commands in flight
	}
	l.rec.LostOp(t1, l.st.Op, n)
	l.rec.Error(t1, stats.Lost, []byte(msg), n)
	if l.st.Retried > 0 {
		l.rec.Retried(l.st.Retried)
	}
}

// replied records a request that got its replies; false when it completed
// after the deadline (it is counted apart and the run finishes).
func (l *loop) replied(t0, t1 time.Time) bool {
	r, st := l.r, &l.st
	l.countLanded(t1)
	if l.down {
		l.down = false
		l.downUntil = t1
		r.avail.markUp(l.id, t1, l.noteRedials(t1))
	}
	if !r.deadline.IsZero() && t1.After(r.deadline) {
		l.rec.Late(st.Ops)
		r.finish(StopDuration)
		return false
	}
	if !st.Sent.IsZero() {
		t0 = st.Sent // a window pipeline's reply: from its own command's send
	}
	l.rec.Record(t1, t1.Sub(t0), st.Ops, st.Failed)
	var corrected time.Duration
	if l.pacer != nil {
		corrected = t1.Sub(l.intended)
		l.rec.RecordCorrected(corrected)
		l.prevDone = t1
	}
	l.rec.RecordOp(st.Op, t1.Sub(t0), corrected, st.Ops, st.Failed, st.Misses)
	l.rec.Bytes(st.Op, st.BytesOut, st.BytesIn)
	if st.Retried > 0 {
		l.rec.Retried(st.Retried)
	}
	if st.Aborted {
		l.rec.Aborted()
	}
	if st.Failed > 0 || st.Err != nil {
		l.rec.Error(t1, stats.Reply, st.Err, st.Failed)
		if r.cfg.MaxErrors > 0 && r.errCount.Add(int64(max(st.Failed, 1))) >= r.cfg.MaxErrors {
			r.stop(StopMaxErrors)
		}
	}
	return true
}
