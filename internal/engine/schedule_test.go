package engine

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConstantPacer(t *testing.T) {
	// 1,000/s over 4 workers: each sends every 4 ms, worker 1 starts 1 ms in.
	p := NewPacer(1000, 4, 1, false, 7, 20*time.Millisecond)
	cases := []struct {
		name    string
		elapsed time.Duration
		sent    uint64
		wait    time.Duration
		stop    bool
	}{
		{"first, early", 0, 0, time.Millisecond, false},
		{"first, due", time.Millisecond, 0, 0, false},
		{"first, late: no negative wait", 3 * time.Millisecond, 0, 0, false},
		{"third", 6 * time.Millisecond, 2, 3 * time.Millisecond, false},
		{"fifth: 17 ms, before the end", 0, 4, 17 * time.Millisecond, false},
		{"sixth: 21 ms, past the end", 0, 5, 0, true},
		{"asked again: the same answer", 6 * time.Millisecond, 2, 3 * time.Millisecond, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wait, stop := p.Pace(c.elapsed, c.sent)
			assert.Equal(t, c.wait, wait)
			assert.Equal(t, c.stop, stop)
		})
	}
	assert.Equal(t, 9*time.Millisecond, p.Due(2))
}

func TestPacerWithoutEndNeverStops(t *testing.T) {
	for _, poisson := range []bool{false, true} {
		p := NewPacer(100, 1, 0, poisson, 1, 0)
		_, stop := p.Pace(0, 1_000_000)
		assert.False(t, stop)
	}
}

// TestPacersInterleave checks that the workers' shares of a constant
// schedule together space requests evenly: the run's rate, not N bursts.
func TestPacersInterleave(t *testing.T) {
	const workers, rate = 5, 10_000.0
	var all []time.Duration
	for id := range workers {
		p := NewPacer(rate, workers, id, false, 0, 0)
		for n := range uint64(100) {
			all = append(all, p.Due(n))
		}
	}
	slices.Sort(all)
	for i := 1; i < len(all); i++ {
		assert.InDelta(t, float64(100*time.Microsecond), float64(all[i]-all[i-1]), 1, "gap %d", i)
	}
}

func TestPoissonPacerIsSeededAndOrderFree(t *testing.T) {
	a := NewPacer(1000, 2, 0, true, 42, 0)
	b := NewPacer(1000, 2, 0, true, 42, 0)
	other := NewPacer(1000, 2, 0, true, 43, 0)
	// b is asked out of order and twice: the answers do not depend on it.
	want := make([]time.Duration, 2000)
	for n := range want {
		want[n] = a.Due(uint64(n))
	}
	assert.Equal(t, want[1500], b.Due(1500))
	assert.Equal(t, want[10], b.Due(10))
	assert.Equal(t, want[10], b.Due(10))
	assert.Equal(t, want[1999], b.Due(1999))
	assert.NotEqual(t, want[1999], other.Due(1999), "another seed, another schedule")
	// The mean gap is the worker's: 2 workers at 1,000/s send every 2 ms each.
	mean := float64(want[1999]-want[0]) / 1999
	require.InDelta(t, float64(2*time.Millisecond), mean, float64(200*time.Microsecond))
	assert.True(t, slices.IsSorted(want))
}

func TestPacerDoesNotAllocate(t *testing.T) {
	for _, poisson := range []bool{false, true} {
		p := NewPacer(1e6, 8, 3, poisson, 9, time.Hour)
		n := uint64(0)
		allocs := testing.AllocsPerRun(1000, func() {
			_, _ = p.Pace(time.Duration(n)*time.Microsecond, n)
			_ = p.Due(n)
			n++
		})
		assert.Zero(t, allocs, "poisson=%v", poisson)
	}
}

// TestDueBeforeCountsTheSchedule: a pacer's count of requests due before
// a time is the walk's, for constant and Poisson arrivals, from any point.
func TestDueBeforeCountsTheSchedule(t *testing.T) {
	for _, poisson := range []bool{false, true} {
		p := NewPacer(3000, 4, 1, poisson, 7, 0)
		for _, until := range []time.Duration{0, time.Millisecond, 999 * time.Millisecond, time.Second, 5 * time.Second} {
			var walked uint64
			for p.Due(walked) < until {
				walked++
			}
			assert.Equal(t, walked, p.(dueCounter).DueBefore(until), "poisson %v, before %s", poisson, until)
		}
	}
}
