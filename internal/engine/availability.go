package engine

import (
	"sync"
	"time"

	"github.com/tairbench/tairbench/pkg/result"
)

// availability tracks when workers have no usable connection. Workers call
// it only when their state changes (a loss, a recovery), never per request.
type availability struct {
	mu           sync.Mutex
	start        time.Time // start of measurement
	workers      int
	down         int
	allDownSince time.Time
	unreachable  time.Duration
	downSince    []time.Time
	lost         []bool
	downtime     time.Duration
	reconnects   int64
}

func newAvailability(start time.Time, workers int) *availability {
	return &availability{start: start, workers: workers, downSince: make([]time.Time, workers), lost: make([]bool, workers)}
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

// markDown records that worker id lost its connection at now.
func (a *availability) markDown(id int, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.downSince[id] = now
	if !now.Before(a.start) {
		a.lost[id] = true
	}
	a.down++
	if a.down == a.workers {
		a.allDownSince = now
	}
}

// markUp records that worker id has a usable connection again at now.
func (a *availability) markUp(id int, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.down == a.workers {
		a.unreachable += a.span(a.allDownSince, now)
	}
	a.down--
	a.downtime += a.span(a.downSince[id], now)
	if !now.Before(a.start) {
		a.reconnects++
	}
}

// unreachableFor is how long no worker has had a usable connection (0 while one has).
func (a *availability) unreachableFor(now time.Time) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.down < a.workers || a.workers == 0 {
		return 0
	}
	return now.Sub(a.allDownSince)
}

// finish closes the periods still open at end (the end of measurement).
func (a *availability) finish(end time.Time, measured time.Duration, stillDown []bool) result.Availability {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.down == a.workers && a.workers > 0 {
		a.unreachable += a.span(a.allDownSince, end)
	}
	for id, d := range stillDown {
		if d {
			a.downtime += a.span(a.downSince[id], end)
		}
	}
	r := result.Availability{UnreachableMS: ms(min(a.unreachable, measured)), Connections: a.workers,
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
