package engine

import (
	"math"
	"math/rand/v2"
	"time"
)

// Arrivals name how an open-loop schedule spaces requests.
const (
	// ArrivalsConstant spaces requests evenly.
	ArrivalsConstant = "constant"
	// ArrivalsPoisson draws exponential gaps (a Poisson process), seeded.
	ArrivalsPoisson = "poisson"
	// ArrivalsCaptured names the caller's own schedule of captured times
	// (a replay's Pacers).
	ArrivalsCaptured = "captured"
)

// lateAfter is how far behind its intended time a send may start, or a
// sleeping worker may wake, before it counts as late.
const lateAfter = time.Millisecond

// Pacer is one worker's open-loop schedule. It never reads a clock: the
// same calls give the same answers, so tables test it and the worker loop
// alone turns its answers into waits.
type Pacer interface {
	// Pace says, for a worker that has sent `sent` requests when `elapsed`
	// has passed since the run's start, how long to wait before the next
	// one (0 when it is due or late) and whether the schedule has ended.
	// It is vegeta's Pacer contract.
	Pace(elapsed time.Duration, sent uint64) (wait time.Duration, stop bool)
	// Due is request n's intended start (n counts from 0), as an offset
	// from the run's start: what corrected latency is measured from.
	Due(n uint64) time.Duration
}

// dueCounter is a Pacer that counts its requests due before a time
// without the caller walking them one by one.
type dueCounter interface {
	// DueBefore is the number of requests whose Due is before t.
	DueBefore(t time.Duration) uint64
}

// dueBefore is the number of p's requests due before t.
func dueBefore(p Pacer, t time.Duration) uint64 {
	if c, ok := p.(dueCounter); ok {
		return c.DueBefore(t)
	}
	var k uint64
	for p.Due(k) < t {
		k++
	}
	return k
}

// NewPacer returns worker id's share of an open-loop schedule of rate
// requests per second over workers workers, ending at end (0: no end):
// each worker sends every workers/rate seconds, staggered by id so that
// the workers' sends interleave. With poisson the gaps are exponential,
// drawn from seed.
func NewPacer(rate float64, workers, id int, poisson bool, seed uint64, end time.Duration) Pacer {
	gap := float64(workers) * 1e9 / rate
	offset := float64(id) * gap / float64(workers)
	if poisson {
		return newPoissonPacer(gap, offset, end, seed)
	}
	return constantPacer{gap: gap, offset: offset, end: end}
}

// pace is the Pace of a pacer whose next request is due at due.
func pace(due, elapsed, end time.Duration) (time.Duration, bool) {
	if end > 0 && due >= end {
		return 0, true
	}
	return max(due-elapsed, 0), false
}

// constantPacer spaces one worker's requests gap nanoseconds apart.
type constantPacer struct {
	gap, offset float64 // nanoseconds
	end         time.Duration
}

// Due implements Pacer.
func (p constantPacer) Due(n uint64) time.Duration {
	return time.Duration(p.offset + float64(n)*p.gap)
}

// DueBefore implements dueCounter: from the arithmetic, then checked
// against Due's own rounding.
func (p constantPacer) DueBefore(t time.Duration) uint64 {
	x := (float64(t) - p.offset) / p.gap
	if x <= 0 {
		return 0
	}
	n := uint64(math.Ceil(x))
	for n > 0 && p.Due(n-1) >= t {
		n--
	}
	for p.Due(n) < t {
		n++
	}
	return n
}

// Pace implements Pacer.
func (p constantPacer) Pace(elapsed time.Duration, sent uint64) (time.Duration, bool) {
	return pace(p.Due(sent), elapsed, p.end)
}

// poissonPacer draws exponential gaps from a seeded generator. Its state
// only remembers how far the draws have gone: asking for request n again,
// or for a later one, gives the same times whatever the order of calls.
type poissonPacer struct {
	gap, offset float64 // nanoseconds
	end         time.Duration
	seed        uint64
	rng         *rand.Rand
	n           uint64  // the request whose start is at
	at          float64 // nanoseconds since the run's start
}

func newPoissonPacer(gap, offset float64, end time.Duration, seed uint64) *poissonPacer {
	p := &poissonPacer{gap: gap, offset: offset, end: end, seed: seed}
	p.restart()
	return p
}

// restart goes back to request 0 (only a caller that goes backwards pays for it).
func (p *poissonPacer) restart() {
	p.rng = rand.New(rand.NewPCG(p.seed, p.seed^0x5851f42d4c957f2d))
	p.n, p.at = 0, p.offset
}

// Due implements Pacer.
func (p *poissonPacer) Due(n uint64) time.Duration {
	if n < p.n {
		p.restart()
	}
	for p.n < n {
		p.at += p.rng.ExpFloat64() * p.gap
		p.n++
	}
	return time.Duration(p.at)
}

// poissonWalk bounds the draws DueBefore makes: past it, the rest of the
// requests before t are counted at the schedule's mean rate.
const poissonWalk = 1 << 22

// DueBefore implements dueCounter: the draws, up to poissonWalk of them
// past where the pacer is, then the mean rate for the rest.
func (p *poissonPacer) DueBefore(t time.Duration) uint64 {
	if float64(t) <= p.offset {
		return 0
	}
	if p.at >= float64(t) {
		p.restart()
	}
	for walked := 0; p.at < float64(t); walked++ {
		if walked == poissonWalk {
			return p.n + uint64(math.Ceil((float64(t)-p.at)/p.gap))
		}
		p.at += p.rng.ExpFloat64() * p.gap
		p.n++
	}
	return p.n
}

// Pace implements Pacer.
func (p *poissonPacer) Pace(elapsed time.Duration, sent uint64) (time.Duration, bool) {
	return pace(p.Due(sent), elapsed, p.end)
}
