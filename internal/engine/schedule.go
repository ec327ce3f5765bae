package engine

import (
	"math/rand/v2"
	"time"
)

// Arrivals name how an open-loop schedule spaces requests.
const (
	// ArrivalsConstant spaces requests evenly.
	ArrivalsConstant = "constant"
	// ArrivalsPoisson draws exponential gaps (a Poisson process), seeded.
	ArrivalsPoisson = "poisson"
)

// lateAfter is how far behind its intended time a send may start, or a
// sleeping worker may wake, before it counts as late.
const lateAfter = time.Millisecond

// schedule gives one worker's intended start times: the run's rate split
// over the workers, staggered so that the workers' sends interleave.
type schedule struct {
	next    time.Time
	gap     float64 // mean gap in nanoseconds
	poisson bool
	rng     *rand.Rand
	carry   float64 // fractional nanoseconds not yet added
}

func newSchedule(start time.Time, rate float64, workers, id int, poisson bool, seed uint64) *schedule {
	gap := float64(workers) * 1e9 / rate
	s := &schedule{gap: gap, poisson: poisson, rng: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))}
	s.next = start.Add(time.Duration(float64(id) * gap / float64(workers)))
	return s
}

// take returns the next intended start and moves past it.
func (s *schedule) take() time.Time {
	t := s.next
	g := s.gap
	if s.poisson {
		g = s.rng.ExpFloat64() * s.gap
	}
	g += s.carry
	whole := time.Duration(g)
	s.carry = g - float64(whole)
	s.next = s.next.Add(whole)
	return t
}
