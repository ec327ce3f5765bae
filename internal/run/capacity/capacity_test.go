package capacity

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/result"
)

func TestParseSLO(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"p99<2ms", "p99<2ms", ""},
		{"p99.9<10ms, errors<0.1%", "p99.9<10ms,errors<0.1%", ""},
		{"max<1s,mean<500us", "max<1s,mean<500µs", ""},
		{"p99>2ms", "", "want METRIC<BOUND"},
		{"p98<2ms", "", "unknown metric"},
		{"p99<fast", "", "duration"},
		{"errors<5", "", "percentage"},
		{"", "", "empty"},
	}
	for _, tc := range tests {
		s, err := ParseSLO(tc.in)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, s.String())
	}
}

// knee is a fake target whose corrected p99 is 1 ms up to capacity and
// grows past it.
func knee(capacity float64) RunAt {
	return func(_ context.Context, rate float64, window, _ time.Duration) (*result.Run, error) {
		p99 := 1000.0
		if rate > capacity {
			p99 = 1000 * (1 + 10*(rate-capacity)/capacity)
		}
		l := result.Latency{P50: 500, P99: p99, P999: p99 * 2, Max: p99 * 3}
		return &result.Run{Totals: result.Totals{Requests: int64(rate * window.Seconds()), RequestsPerSec: rate,
			Latency: result.Latency{P99: 900}, CorrectedLatency: &l, Schedule: &result.Schedule{}}}, nil
	}
}

func TestSearchBisectsToThePrecision(t *testing.T) {
	slo, err := ParseSLO("p99<2ms")
	require.NoError(t, err)
	c, err := Search(context.Background(), Options{SLO: slo, Window: time.Second, Precision: 0.02, Start: 1000}, knee(10_000))
	require.NoError(t, err)
	// p99 stays under 2 ms up to 110% of capacity: 11,000/s.
	assert.InEpsilon(t, 11_000, c.HighestHeld, 0.02)
	assert.Greater(t, c.BrokeAt, c.HighestHeld)
	assert.LessOrEqual(t, (c.BrokeAt-c.HighestHeld)/c.HighestHeld, 0.02)
	assert.Equal(t, []float64{1000, 2000, 4000, 8000, 16000}, rates(c.Steps[:5]), "the ramp doubles")
	require.NotNil(t, c.Confirm)
	assert.True(t, c.Confirm.Held)
	assert.Zero(t, c.Noise)
	assert.Empty(t, c.Warnings)
}

func TestSearchHalvesWhenTheStartBreaks(t *testing.T) {
	slo, _ := ParseSLO("p99<2ms")
	c, err := Search(context.Background(), Options{SLO: slo, Window: time.Second, Precision: 0.02, Start: 50_000}, knee(10_000))
	require.NoError(t, err)
	assert.Equal(t, []float64{50_000, 25_000, 12_500, 6_250}, rates(c.Steps[:4]), "the ramp halves until the SLO holds")
	assert.InEpsilon(t, 11_000, c.HighestHeld, 0.02)
	assert.Empty(t, c.Warnings)
}

func TestSearchSaysWhenNothingHeld(t *testing.T) {
	slo, _ := ParseSLO("p99<2ms")
	c, err := Search(context.Background(), Options{SLO: slo, Window: time.Second, Precision: 0.02, Start: 64}, knee(0.5))
	require.NoError(t, err)
	assert.Zero(t, c.HighestHeld)
	assert.Equal(t, 1.0, c.BrokeAt, "halved down to 1/s")
	assert.Contains(t, c.Warnings[0], "no rate tried held the SLO, down to 1/s")
}

func rates(steps []result.CapacityStep) []float64 {
	out := make([]float64, len(steps))
	for i, s := range steps {
		out[i] = s.Rate
	}
	return out
}

// flaky holds the SLO at or below capacity in the search's steps, but its
// confirming runs (from the first repeat of a rate on) hold only at or
// below confirmCapacity.
func flaky(capacity, confirmCapacity float64) RunAt {
	seen := map[float64]int{}
	confirming := false
	return func(ctx context.Context, rate float64, window, warmup time.Duration) (*result.Run, error) {
		seen[rate]++
		confirming = confirming || seen[rate] > 1
		limit := capacity
		if confirming {
			limit = confirmCapacity
		}
		return knee(limit/1.1)(ctx, rate, window, warmup)
	}
}

// TestRerunsThatDisagreeHaveNoAnswer: a target that holds up to 8,000/s
// while searched but only up to 4,500/s when run again (the run-to-run
// noise beyond the SLO's margin) gets no answer: a rate held while one
// more than 10 % lower broke. The warning and the summary give the
// contradiction, the highest rate held below every break and every run.
func TestRerunsThatDisagreeHaveNoAnswer(t *testing.T) {
	slo, _ := ParseSLO("p99<2ms")
	c, err := Search(context.Background(), Options{SLO: slo, Window: time.Second, Precision: 0.02, Start: 1000}, flaky(8000, 4500))
	require.NoError(t, err)
	require.NotEmpty(t, c.Confirmations)
	assert.False(t, c.Confirmations[0].Held, "the first answer broke when run again")
	assert.Equal(t, []float64{1, 0.9, 0.8, 0.65, 0.5}, fractionsOf(c), "the answer, then 90%, 80%, 65% and 50% of it")
	assert.True(t, c.Unstable)
	assert.Zero(t, c.HighestHeld, "no answer the runs contradict")
	for _, want := range []string{"7875/s held p99<2ms but 5119/s, 35% lower, broke it", "below every break, 4000/s held",
		"steps: 1000 held, 2000 held, 4000 held, 8000 broke, 6000 held", "run again: 7875 broke, 7088 broke, 6300 broke, 5119 broke, 3938 held"} {
		assert.Contains(t, c.UnstableWhy, want)
	}
	assert.Contains(t, strings.Join(c.Warnings, "\n"), "no stable answer: "+c.UnstableWhy)
	var b strings.Builder
	require.NoError(t, WriteSummary(&b, c))
	assert.Contains(t, b.String(), "answer       no stable answer: 7875/s held")
	assert.NotContains(t, b.String(), "agree", "no claim that the searches agree")
}

func TestNoStableAnswer(t *testing.T) {
	slo, _ := ParseSLO("p99<2ms")
	// Every confirming run breaks: no rate is an answer.
	c, err := Search(context.Background(), Options{SLO: slo, Window: time.Second, Precision: 0.02, Start: 1000}, flaky(8000, 0.5))
	require.NoError(t, err)
	assert.True(t, c.Unstable)
	assert.Zero(t, c.HighestHeld)
	assert.Nil(t, c.Confirm)
	assert.Len(t, c.Confirmations, len(confirmFractions))
	assert.Contains(t, strings.Join(c.Warnings, "\n"), "no stable answer")
	var b strings.Builder
	require.NoError(t, WriteSummary(&b, c))
	assert.Contains(t, b.String(), "answer       no stable answer")
}

// fractionsOf are the confirmations' rates as fractions of the first.
func fractionsOf(c *result.CapacitySearch) []float64 {
	var out []float64
	for _, st := range c.Confirmations {
		out = append(out, math.Round(100*st.Rate/c.Confirmations[0].Rate)/100)
	}
	return out
}

// TestAnswerWithinTheNoiseStepsDown: when the confirming run at the
// answer breaks and the next rung (90 %) holds, the runs disagree by no
// more than the noise an answer absorbs: the answer is that rung, which
// held when run again, with a warning.
func TestAnswerWithinTheNoiseStepsDown(t *testing.T) {
	slo, _ := ParseSLO("p99<2ms")
	c, err := Search(context.Background(), Options{SLO: slo, Window: time.Second, Precision: 0.02, Start: 1000}, flaky(8000, 7500))
	require.NoError(t, err)
	assert.False(t, c.Unstable, "%v", c.Warnings)
	require.NotNil(t, c.Confirm)
	assert.Equal(t, c.Confirm.Rate, c.HighestHeld)
	assert.Equal(t, []float64{1, 0.9}, fractionsOf(c))
	assert.Contains(t, strings.Join(c.Warnings, "\n"), "stepped down")
	var b strings.Builder
	require.NoError(t, WriteSummary(&b, c))
	assert.Contains(t, b.String(), fmt.Sprintf("answer       %.0f requests/s held", c.HighestHeld))
}

// TestContradiction: the rule on its own, over steps and reruns. Runs
// that are monotone in rate, or within 10 % of it, are no contradiction;
// a rate held more than 10 % above one that broke is, wherever the two
// runs were (a step, a rerun).
func TestContradiction(t *testing.T) {
	run := func(rate float64, held bool) result.CapacityStep { return result.CapacityStep{Rate: rate, Held: held} }
	for _, tc := range []struct {
		name          string
		steps, reruns []result.CapacityStep
		want          string
	}{
		{"monotone", []result.CapacityStep{run(1000, true), run(2000, false), run(1500, true)}, []result.CapacityStep{run(1500, true)}, ""},
		{"within the noise", []result.CapacityStep{run(1000, true), run(2000, true), run(4000, false), run(3000, true)}, []result.CapacityStep{run(3000, false), run(2700, true)}, ""},
		{"a step broke below a held one", []result.CapacityStep{run(1000, true), run(2000, false), run(4000, true)}, nil,
			"4000/s held p99<2ms but 2000/s, 50% lower, broke it: the run-to-run noise exceeds the SLO's margin (widen the window); below every break, 1000/s held; steps: 1000 held, 2000 broke, 4000 held"},
		{"a rerun broke far below a held step", []result.CapacityStep{run(2813, false), run(2696, true)}, []result.CapacityStep{run(2696, false), run(2427, false), run(2157, true)},
			"2696/s held p99<2ms but 2427/s, 10% lower, broke it: the run-to-run noise exceeds the SLO's margin (widen the window); below every break, 2157/s held; steps: 2813 broke, 2696 held; run again: 2696 broke, 2427 broke, 2157 held"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, contradiction(&result.CapacitySearch{SLO: "p99<2ms", Steps: tc.steps, Confirmations: tc.reruns}))
		})
	}
}
