package engine

import "time"

// runOpen is the open loop of a worker that waits for its replies
// (ModeOpen): each request goes at its intended start from the worker's
// Pacer, its latency measured from that start (corrected) as well as from
// the send.
func (l *loop) runOpen() {
	r := l.r
	for r.ctx.Err() == nil && !r.finishing.Load() {
		if !l.claim() || !l.pace() {
			return
		}
		l.w.Prepare()
		if !l.exec() {
			return
		}
	}
}

// pace waits for the next request's intended start and records lateness:
// the worker's own (it woke late, or was free but not running) apart from
// the server's (the previous reply held it up). False when the run ends.
func (l *loop) pace() bool {
	r := l.r
	elapsed := time.Since(r.begin)
	wait, stop := l.pacer.Pace(elapsed, uint64(l.sent))
	if stop {
		return false // nothing more is scheduled for it inside the run; the others send theirs
	}
	due := l.pacer.Due(uint64(l.sent))
	l.sent++
	l.intended = r.begin.Add(due)
	if wait == 0 {
		l.noteLate(l.intended, r.begin.Add(elapsed))
		return true
	}
	// A timer for all but the last 2 ms, then a precise sleep.
	if wait > 2*time.Millisecond {
		l.timer.Reset(wait - 2*time.Millisecond)
		select {
		case <-l.timer.C:
		case <-r.ctx.Done():
			return false
		case <-r.halt:
			return false
		}
	}
	if rest := time.Until(l.intended); rest > 0 {
		l.sleepShort(rest)
	}
	if woke := time.Now(); woke.Sub(l.intended) > lateAfter {
		l.rec.ClientLag(woke, woke.Sub(l.intended))
	}
	return true
}
