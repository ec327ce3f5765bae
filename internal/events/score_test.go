package events

import (
	"errors"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// second is one synthetic second: its requests all of latency us, its
// replies in every slot but those in gap.
func second(t *testing.T, requests int64, us int64, errs int64, gap ...int) (result.Interval, stats.Second) {
	h := stats.NewHistogram()
	if requests > errs {
		require.NoError(t, h.RecordValues(us, requests-errs))
	}
	var sec stats.Second
	if h.TotalCount() > 0 {
		sec.Histogram = result.EncodeHistogram(h)
	}
	empty := map[int]bool{}
	for _, g := range gap {
		empty[g] = true
	}
	for i := 0; i < stats.SlotsPerInterval && requests > errs; i++ {
		if !empty[i] {
			sec.Slots[i>>6] |= 1 << (i & 63)
		}
	}
	return result.Interval{Requests: requests, Errors: errs}, sec
}

func series(t *testing.T, secs ...func() (result.Interval, stats.Second)) Series {
	s := Series{Interval: time.Second, Elapsed: time.Duration(len(secs)) * time.Second, Start: time.Unix(1000, 0)}
	for i, f := range secs {
		row, sec := f()
		row.Second = i
		s.Rows = append(s.Rows, row)
		s.Seconds = append(s.Seconds, sec)
	}
	return s
}

func TestScore(t *testing.T) {
	ok := func() (result.Interval, stats.Second) { return second(t, 1000, 100, 0) }
	// Second 3: no reply from slot 64 on; second 4: none before slot 32,
	// and slow; 5 and on as before. The event at 3.5 s completes at 4.25 s.
	s := series(t, ok, ok, ok,
		func() (result.Interval, stats.Second) { return second(t, 500, 100, 0, span(64, 128)...) },
		func() (result.Interval, stats.Second) { return second(t, 700, 900_000, 0, span(0, 32)...) },
		ok, ok, ok, ok)
	e, _ := Parse("at=3.5s failover")
	rec := Record{Event: e, Issued: s.Start.Add(3500 * time.Millisecond), Outcome: Outcome{Completed: s.Start.Add(4250 * time.Millisecond)}}
	p := &Plan{Events: []Event{e}}
	part := p.Score([]Record{rec}, s)
	require.Len(t, part.Events, 1)
	ev := part.Events[0]
	assert.Equal(t, result.SchemaEvents, part.Schema)
	assert.Equal(t, DefaultSLO, part.SLO)
	assert.InDelta(t, 7.8125, part.SlotMS, 1e-9)
	assert.Equal(t, 3.5, *ev.IssuedS)
	assert.Equal(t, 4.25, *ev.CompletedS)
	sc := ev.Score
	require.NotNil(t, sc)
	// 96 empty slots of 7.8125 ms in a row: 64..127 of second 3, 0..31 of 4.
	assert.InDelta(t, 750, sc.NoReplyMS, 1e-9)
	// Second 3 met the SLO (its replies were fast), 4 did not; the
	// recovery is looked for from the completion's second: 5, 6, 7.
	require.NotNil(t, sc.RecoveredS)
	assert.InDelta(t, 1.5, *sc.RecoveredS, 1e-9)
	assert.Equal(t, 1, sc.SecondsOutOfSLO)
	assert.Equal(t, result.EventWindow{FromS: 0, ToS: 3, Seconds: 3, Requests: 3000, P99US: ptr(100), P999US: ptr(100), MaxUS: ptr(100)}, scrub(sc.Before))
	assert.Equal(t, 3, sc.Inside.FromS)
	assert.Equal(t, 5, sc.Inside.ToS)
	assert.Equal(t, int64(1200), sc.Inside.Requests)
	assert.InDelta(t, 900_000, *sc.Inside.MaxUS, 900)
}

func ptr(v float64) *float64 { return &v }

// scrub rounds a window's latencies to the histogram's precision.
func scrub(w result.EventWindow) result.EventWindow {
	for _, p := range []**float64{&w.P99US, &w.P999US, &w.MaxUS} {
		if *p != nil {
			v := float64(int64(**p))
			*p = &v
		}
	}
	return w
}

func TestScoreSLOAndOverlap(t *testing.T) {
	ok := func() (result.Interval, stats.Second) { return second(t, 1000, 100, 0) }
	bad := func() (result.Interval, stats.Second) { return second(t, 1000, 100, 10) }
	s := series(t, ok, ok, bad, ok, bad, ok, ok, ok, ok, ok)
	a, _ := Parse("at=2s bgsave")
	b, _ := Parse("at=4s bgsave")
	recs := []Record{
		{Event: a, Issued: s.Start.Add(2 * time.Second), Outcome: Outcome{Completed: s.Start.Add(2100 * time.Millisecond)}},
		{Event: b, Issued: s.Start.Add(4 * time.Second), Outcome: Outcome{Completed: s.Start.Add(4100 * time.Millisecond)}},
	}
	part := (&Plan{Events: []Event{a, b}}).Score(recs, s)
	first, second := part.Events[0].Score, part.Events[1].Score
	// The first's window ends where the second starts: 3 seconds in a
	// row are not there before it.
	assert.Nil(t, first.RecoveredS)
	assert.True(t, first.CutByNextEvent)
	assert.Equal(t, 4, first.Inside.ToS)
	assert.Equal(t, 1, first.SecondsOutOfSLO)
	require.NotNil(t, second.RecoveredS)
	assert.Equal(t, 1.0, *second.RecoveredS)
	assert.Equal(t, 1, second.SecondsOutOfSLO)
	assert.Equal(t, int64(10), second.Inside.Errors)

	// An SLO of the user's: p99 under 50 µs fails every second.
	strict := &Plan{Events: []Event{a}, SLOText: "p99<50us", SLO: func(h *hdr.Histogram, _ float64) bool { return h.ValueAtQuantile(99) < 50 }}
	one := strict.Score(recs[:1], s).Events[0]
	assert.Equal(t, "p99<50us", strict.Score(recs[:1], s).SLO)
	assert.Nil(t, one.Score.RecoveredS)
	assert.False(t, one.Score.CutByNextEvent)
	assert.Equal(t, 8, one.Score.SecondsOutOfSLO)
}

func TestScoreFailedAndCycles(t *testing.T) {
	ok := func() (result.Interval, stats.Second) { return second(t, 1000, 100, 0) }
	s := series(t, ok, ok, ok, ok, ok, ok, ok, ok)
	e, _ := Parse("at=1s failover")
	p := &Plan{Events: []Event{e}, Cycles: 3, Every: 2 * time.Second}
	tl := p.Timeline()
	recs := []Record{
		{Event: tl[0], Issued: s.Start.Add(time.Second), Outcome: Outcome{Completed: s.Start.Add(1200 * time.Millisecond)}},
		{Event: tl[1], Issued: s.Start.Add(3 * time.Second), Outcome: Outcome{Err: errors.New("ERR no replica"), Reply: "ERR no replica"}},
		{Event: tl[2], Issued: s.Start.Add(5 * time.Second), Outcome: Outcome{Err: ErrNotSeen}},
	}
	part := p.Score(recs, s)
	assert.NotNil(t, part.Events[0].Score)
	assert.Nil(t, part.Events[1].Score, "a refused event did nothing to score")
	assert.Equal(t, "ERR no replica", part.Events[1].Error)
	require.NotNil(t, part.Events[2].Score, "an event whose end was not seen is scored to the run's end")
	assert.Nil(t, part.Events[2].CompletedS)
	require.Len(t, part.Cycles, 1)
	c := part.Cycles[0]
	assert.Equal(t, 3, c.Cycles)
	assert.Equal(t, 2, c.NoReplyMS.Count)
	assert.Equal(t, result.Spread{Count: 3, Min: 1, Median: 2, Max: 3}, spread([]float64{3, 1, 2}))
	assert.Equal(t, result.Spread{Count: 2, Min: 1, Median: 2, Max: 3}, spread([]float64{3, 1}))

	never := p.Score([]Record{{Event: tl[0]}}, s).Events[0]
	assert.Nil(t, never.Score)
	assert.Equal(t, "not issued: the run ended first", never.Error)
}

// TestBeforeSkipsEvents: an event's Before window is the quiet seconds
// before it, not an earlier event's: the second sleep is judged against
// the run as it was without one.
func TestBeforeSkipsEvents(t *testing.T) {
	ok := func() (result.Interval, stats.Second) { return second(t, 1000, 100, 0) }
	slow := func() (result.Interval, stats.Second) { return second(t, 1000, 500_000, 0) }
	s := series(t, ok, ok, slow, ok, ok, ok, ok, slow, ok, ok, ok)
	e, _ := Parse("at=2s debug sleep 0.5")
	p := &Plan{Events: []Event{e}, Cycles: 2, Every: 5 * time.Second}
	tl := p.Timeline()
	recs := []Record{
		{Event: tl[0], Issued: s.Start.Add(2 * time.Second), Outcome: Outcome{Completed: s.Start.Add(2500 * time.Millisecond)}},
		{Event: tl[1], Issued: s.Start.Add(7 * time.Second), Outcome: Outcome{Completed: s.Start.Add(7500 * time.Millisecond)}},
	}
	sc := p.Score(recs, s).Events[1].Score
	assert.Equal(t, 1, sc.Before.FromS)
	assert.Equal(t, 7, sc.Before.ToS)
	assert.Equal(t, 5, sc.Before.Seconds, "3, 4, 5, 6 and 1: not 2")
	assert.InDelta(t, 100, *sc.Before.P99US, 1)
	assert.Equal(t, 1, sc.SecondsOutOfSLO)
	require.NotNil(t, sc.RecoveredS)
	assert.Equal(t, 1.0, *sc.RecoveredS)

	// An event in the run's first second is judged against the quiet
	// seconds after it.
	first := p.Score([]Record{{Event: tl[0], Issued: s.Start, Outcome: Outcome{Completed: s.Start.Add(time.Millisecond)}}}, s).Events[0].Score
	assert.Equal(t, 1, first.Before.FromS)
	assert.Equal(t, 5, first.Before.Seconds)
}

// TestBeforeSkipsARecovery: the seconds an earlier event took to recover
// from are not a later event's baseline, though no event ran in them.
func TestBeforeSkipsARecovery(t *testing.T) {
	ok := func() (result.Interval, stats.Second) { return second(t, 1000, 100, 0) }
	slow := func() (result.Interval, stats.Second) { return second(t, 1000, 500_000, 0) }
	s := series(t, ok, ok, slow, slow, ok, ok, ok, ok, ok, ok, ok, ok)
	e, _ := Parse("at=2s failover")
	p := &Plan{Events: []Event{e}, Cycles: 2, Every: 6 * time.Second}
	tl := p.Timeline()
	recs := []Record{
		{Event: tl[0], Issued: s.Start.Add(2 * time.Second), Outcome: Outcome{Completed: s.Start.Add(2100 * time.Millisecond)}},
		{Event: tl[1], Issued: s.Start.Add(8 * time.Second), Outcome: Outcome{Completed: s.Start.Add(8100 * time.Millisecond)}},
	}
	evs := p.Score(recs, s).Events
	assert.Equal(t, 4, evs[0].Score.Inside.ToS, "the first recovered at second 4")
	b := evs[1].Score.Before
	assert.Equal(t, 5, b.Seconds, "4, 5, 6, 7 and 1: not 3, the first's recovery")
	assert.InDelta(t, 100, *b.P99US, 1)
}
