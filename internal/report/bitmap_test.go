package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tairbench/tairbench/pkg/result"
)

// TestFastestSetsEveryStructureAgainstTheFastest: every structure within
// 15 % of the fastest is named with it, not only the runner-up; one that
// completed nothing is left out.
func TestFastestSetsEveryStructureAgainstTheFastest(t *testing.T) {
	op := func(means ...float64) result.BitmapOperation {
		names := []string{"tairroaring", "redis-bitmap", "redis-set"}
		var o result.BitmapOperation
		for i, m := range means {
			r := result.BitmapOpResult{Structure: names[i]}
			if m > 0 {
				r.Closed = &result.Run{Totals: result.Totals{Ops: 100, Latency: result.Latency{Mean: m}}}
			}
			o.Results = append(o.Results, r)
		}
		return o
	}
	for _, tc := range []struct {
		name string
		op   result.BitmapOperation
		want string
	}{
		{"one clearly fastest", op(100, 200, 300), "tairroaring"},
		{"runner-up within 15 %", op(110, 100, 300), "≈ redis-bitmap, tairroaring"},
		{"all three within 15 % of the fastest", op(107, 100, 112), "≈ redis-bitmap, tairroaring, redis-set"},
		{"the third is within 15 % of the second, not the fastest", op(100, 114, 120), "≈ tairroaring, redis-bitmap"},
		{"a structure that completed nothing", op(0, 100, 105), "≈ redis-bitmap, redis-set"},
		{"none completed", op(0, 0, 0), "—"},
	} {
		assert.Equal(t, tc.want, BitmapFastest(tc.op), tc.name)
	}
}

// run is a closed-loop run with a mean of mean µs and one second per
// entry of seconds (their means, µs).
func run(mean float64, seconds ...float64) *result.Run {
	r := &result.Run{Totals: result.Totals{Ops: 100, Latency: result.Latency{Mean: mean}}}
	for i, m := range seconds {
		r.Series = append(r.Series, result.Interval{Second: i, Ops: 10, MeanUS: &m})
	}
	return r
}

// TestFastestNeedsALeadBeyondTheNoise: a lead over 15 % is a win only when
// it is also beyond twice the two runs' combined standard error (from
// their seconds' means).
func TestFastestNeedsALeadBeyondTheNoise(t *testing.T) {
	op := func(a, b *result.Run) result.BitmapOperation {
		return result.BitmapOperation{Results: []result.BitmapOpResult{{Structure: "tairroaring", Closed: a}, {Structure: "redis-set", Closed: b}}}
	}
	assert.Equal(t, "tairroaring", BitmapFastest(op(run(100, 99, 100, 101), run(150, 149, 150, 151))), "steady seconds: a clear lead")
	assert.Equal(t, "≈ tairroaring, redis-set", BitmapFastest(op(run(100, 40, 160, 100), run(150, 60, 240, 150))),
		"seconds that swing more than the lead")
}

// TestQueueingNamesTheServersTime: with more than one connection, a mean
// at least twice the server's time per call, that connections × it
// makes up a quarter of at least, is named queueing, with that time and
// connections × it beside; not at one connection, nor when the server
// keeps no time, nor when the mean is the round trip (60 µs against a
// 1 µs call).
func TestQueueingNamesTheServersTime(t *testing.T) {
	p := &result.BitmapPoint{Operations: []result.BitmapOperation{{Name: "and-card-2", Results: []result.BitmapOpResult{
		{Structure: "redis-set", Closed: run(437_000), ServerUsecPerCall: 41_800},
		{Structure: "redis-bitmap", Closed: run(2_000), ServerUsecPerCall: 1_900},
		{Structure: "tairroaring", Closed: run(800)},
		{Structure: "redis-set", Closed: run(60), ServerUsecPerCall: 1}, // a round trip, not a queue
	}}}}
	assert.Equal(t, []string{"and-card-2, redis-set: the mean 437.000 ms at 4 connections is mostly queueing: the server spent 41.800 ms per call " +
		"(INFO commandstats usec_per_call); 4 connections × 41.800 ms = 167.200 ms, so each call waited for the others' (run with -c 1 for the service time)"},
		BitmapQueueing(p, 4))
	assert.Empty(t, BitmapQueueing(p, 1))
	tbl := BitmapOps(p, 4)
	assert.Len(t, tbl.Notes, 1)
}

// TestCrossoversNeedSecondsToMeasureNoise: a change of winner between two
// points is a crossover; from runs of one second it is listed as not
// established.
func TestCrossoversNeedSecondsToMeasureNoise(t *testing.T) {
	point := func(card uint64, a, b *result.Run) result.BitmapPoint {
		return result.BitmapPoint{Cardinality: card, Structures: []result.BitmapStructure{{Name: "tairroaring", MemoryBytes: 10}, {Name: "redis-set", MemoryBytes: 20}},
			Operations: []result.BitmapOperation{{Name: "count", Results: []result.BitmapOpResult{{Structure: "tairroaring", Closed: a}, {Structure: "redis-set", Closed: b}}}}}
	}
	doc := func(seconds bool) *result.BitmapComparison {
		s := func(m float64) []float64 {
			if seconds {
				return []float64{m - 1, m, m + 1}
			}
			return []float64{m}
		}
		return &result.BitmapComparison{Config: result.BitmapConfig{Operations: []string{"count"}}, Points: []result.BitmapPoint{
			point(1000, run(100, s(100)...), run(200, s(200)...)),
			point(100000, run(300, s(300)...), run(150, s(150)...)),
		}}
	}
	assert.Equal(t, []string{"count: tairroaring up to 1000, redis-set from 100000"}, BitmapCrossovers(doc(true)))
	assert.Equal(t, []string{"count: tairroaring up to 1000, redis-set from 100000 (not established: runs under 2 s cannot tell a lead from noise; give --duration 2 or more)"},
		BitmapCrossovers(doc(false)))
	assert.Nil(t, BitmapWins(&result.BitmapComparison{Points: []result.BitmapPoint{{}}}), "one point has no sweep")
}
