package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Time with every connection down is unreachable only while a connect is
// refused; while every request times out it is silence, which the report
// calls unresponsive.
func TestAvailabilityRefusedOrSilent(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	cases := []struct {
		name        string
		steps       func(a *availability)
		unreachable float64
		downFor     float64
		refused     bool
	}{
		{name: "timeouts only: silent", steps: func(a *availability) {
			a.markDown(0, at(1), false)
			a.markDown(1, at(2), false)
			a.markUp(0, at(5), false)
			a.markUp(1, at(5), false)
		}},
		{name: "refused connects: unreachable", steps: func(a *availability) {
			a.markDown(0, at(1), true)
			a.markDown(1, at(2), true)
			a.markUp(0, at(5), false)
			a.markUp(1, at(5), false)
		}, unreachable: 3},
		{name: "timeouts, then refused, then up", steps: func(a *availability) {
			a.markDown(0, at(1), false)
			a.markDown(1, at(1), false)
			a.failedAgain(0, at(3), true)
			a.failedAgain(0, at(4), true) // no change
			a.markUp(0, at(6), false)
			a.markUp(1, at(7), false)
		}, unreachable: 3},
		{name: "still down at the end, refused", steps: func(a *availability) {
			a.markDown(0, at(1), true)
			a.markDown(1, at(2), false)
		}, unreachable: 8, downFor: 7, refused: true},
		{name: "still down at the end, silent", steps: func(a *availability) {
			a.markDown(0, at(1), false)
			a.markDown(1, at(2), false)
		}, downFor: 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAvailability(t0, 2)
			c.steps(a)
			d, refused := a.downFor(at(9))
			assert.InDelta(t, c.downFor, d.Seconds(), 1e-9)
			assert.Equal(t, c.refused, refused)
			r := a.finish(at(10), 10*time.Second, []bool{a.down > 0, a.down > 1})
			assert.InDelta(t, c.unreachable*1000, r.UnreachableMS, 1e-6)
		})
	}
}
