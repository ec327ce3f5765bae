package engine

import (
	"sync"
	"time"
)

// availability tracks when workers have no usable connection. Workers call
// it only when their state changes (a loss, a recovery, another cause of a
// failure while down), never per request.
//
// Time with every worker down is unreachable while a worker's latest
// failure is a refused connect (a ConnectError), and silent while every
// worker's latest failure is a request with no reply (a timeout, a reset):
// the connections can be made and the server does not answer. The report
// calls the second unresponsive; only the first is unreachable.
type availability struct {
	mu           sync.Mutex
	start        time.Time // start of measurement
	workers      int
	down         int
	refusedDown  int // down workers whose latest failure was a refused connect
	allDownSince time.Time
	segSince     time.Time // start of the all-down stretch's current kind
	segRefused   bool      // that kind: refused (unreachable) or silent
	unreachable  time.Duration
	downSince    []time.Time
	lost         []bool
	refused      []bool
	downtime     time.Duration
	reconnects   int64
}

func newAvailability(start time.Time, workers int) *availability {
	return &availability{start: start, workers: workers, downSince: make([]time.Time, workers), lost: make([]bool, workers),
		refused: make([]bool, workers)}
}

// span is the part of [from, to) inside the measured time.
func (a *availability) span(from, to time.Time) time.Duration {
	if from.Before(a.start) {
		from = a.start
	}
	if to.Before(from) {
		return 0
	}
	return to.Sub(from)
}

// closeSegment adds the all-down stretch's current kind up to now.
func (a *availability) closeSegment(now time.Time) {
	if a.down == a.workers && a.workers > 0 && a.segRefused {
		a.unreachable += a.span(a.segSince, now)
	}
	a.segSince = now
	a.segRefused = a.refusedDown > 0
}

// markDown records that worker id lost its connection at now; refused
// says the failure was a connect the target refused.
func (a *availability) markDown(id int, now time.Time, refused bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closeSegment(now)
	a.downSince[id] = now
	if !now.Before(a.start) {
		a.lost[id] = true
	}
	a.down++
	a.refused[id] = refused
	if refused {
		a.refusedDown++
	}
	if a.down == a.workers {
		a.allDownSince = now
	}
	a.segRefused = a.refusedDown > 0
}

// failedAgain records the cause of another failure of worker id, already
// down: a refused connect, or a request with no reply.
func (a *availability) failedAgain(id int, now time.Time, refused bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.refused[id] == refused {
		return
	}
	a.closeSegment(now)
	a.refused[id] = refused
	if refused {
		a.refusedDown++
	} else {
		a.refusedDown--
	}
	a.segRefused = a.refusedDown > 0
}

// reconnected counts n connections made again at now (a Redialer's).
func (a *availability) reconnected(n int, now time.Time) {
	if n <= 0 || now.Before(a.start) {
		return
	}
	a.mu.Lock()
	a.reconnects += int64(n)
	a.mu.Unlock()
}

// markUp records that worker id has a usable connection again at now;
// counted says its reconnects are counted apart (reconnected), else the
// recovery counts as one.
func (a *availability) markUp(id int, now time.Time, counted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closeSegment(now)
	a.down--
	if a.refused[id] {
		a.refusedDown--
		a.refused[id] = false
	}
	a.downtime += a.span(a.downSince[id], now)
	if !counted && !now.Before(a.start) {
		a.reconnects++
	}
	a.segRefused = a.refusedDown > 0
}

// downFor is how long no worker has had a usable connection (0 while one
// has), and whether a worker's latest failure is a refused connect.
func (a *availability) downFor(now time.Time) (time.Duration, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.down < a.workers || a.workers == 0 {
		return 0, false
	}
	return now.Sub(a.allDownSince), a.refusedDown > 0
}

// finish closes the periods still open at end (the end of measurement).
func (a *availability) finish(end time.Time, measured time.Duration, stillDown []bool) Availability {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closeSegment(end)
	for id, d := range stillDown {
		if d {
			a.downtime += a.span(a.downSince[id], end)
		}
	}
	r := Availability{UnreachableMS: ms(min(a.unreachable, measured)), Connections: a.workers,
		DowntimeMS: ms(a.downtime), Reconnects: a.reconnects, SilentSeconds: []int{}}
	if measured > 0 {
		r.UnreachableFraction = float64(min(a.unreachable, measured)) / float64(measured)
	}
	for _, l := range a.lost {
		if l {
			r.ConnectionsLost++
		}
	}
	return r
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
