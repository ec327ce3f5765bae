package events

import (
	"errors"
	"fmt"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

// beforeSeconds is how many quiet seconds its Before window holds.
const beforeSeconds = 5

// DefaultSLO says in words what a second must meet when no SLO is given.
const DefaultSLO = "p99 at most 2x the p99 of the seconds before the event plus 1 ms, and no error"

// Series is what the run measured, for the scores: its per-second rows,
// each second's histogram and reply slots (stats.Aggregator.KeepSeconds),
// the series' interval, its measured time, and when it started.
type Series struct {
	Rows     []result.Interval
	Seconds  []stats.Second
	Interval time.Duration
	Elapsed  time.Duration
	Start    time.Time
}

// Score makes the run's events part: each record with its score.
func (p *Plan) Score(records []Record, s Series) *result.Events {
	if s.Interval <= 0 {
		s.Interval = time.Second
	}
	out := &result.Events{Schema: result.SchemaEvents, SLO: p.SLOText, RecoverSeconds: p.recoverSeconds(),
		SlotMS: float64(s.Interval) / float64(time.Millisecond) / stats.SlotsPerInterval, Events: []result.Event{}}
	if p.SLO == nil {
		out.SLO = DefaultSLO
	}
	hz := horizons(records, s)
	quiet := quietSeconds(records, s, hz)
	for i, r := range records {
		ev := result.Event{Action: r.Action, Text: r.Text, Cycle: r.Cycle, AtS: r.At.Seconds(), Reply: r.Reply, Signals: r.Signals}
		if r.Err != nil {
			ev.Error = r.Err.Error()
		}
		if r.Issued.IsZero() {
			ev.Error = "not issued: the run ended first"
		} else {
			ev.IssuedS = secondsPtr(r.Issued.Sub(s.Start))
		}
		if !r.Completed.IsZero() {
			ev.CompletedS = secondsPtr(r.Completed.Sub(s.Start))
		} else if r.Err == nil && !r.Issued.IsZero() {
			ev.Error = ErrNotSeen.Error()
		}
		// An event that failed (refused, or it could not be sent) did
		// nothing to score; one whose end was not seen is scored to the
		// run's end.
		if !r.Issued.IsZero() && (r.Err == nil || errors.Is(r.Err, ErrNotSeen)) {
			ev.Score = p.score(r, s, hz[i], quiet)
			// Its window, to its recovery, is no later event's baseline.
			for j := ev.Score.Inside.FromS; j < ev.Score.Inside.ToS && j < len(quiet); j++ {
				quiet[j] = false
			}
		}
		out.Events = append(out.Events, ev)
	}
	out.Cycles = cycles(out.Events)
	return out
}

func (p *Plan) recoverSeconds() int {
	if p.RecoverSeconds > 0 {
		return p.RecoverSeconds
	}
	return 3
}

func secondsPtr(d time.Duration) *float64 {
	v := float64(d.Round(time.Millisecond)) / float64(time.Second)
	return &v
}

// score reads one event's score from the series. Its window runs from
// the second it was issued in to its recovery, at most to horizon (the
// second the next event starts in, or the run's end); its Before window
// is the quiet seconds before it (no event in them).
func (p *Plan) score(r Record, s Series, horizon int, quiet []bool) *result.EventScore {
	iss := r.Issued.Sub(s.Start)
	first := int(max(iss, 0) / s.Interval)
	done := first
	if !r.Completed.IsZero() {
		done = max(first, int(r.Completed.Sub(s.Start)/s.Interval))
	}
	horizon = max(horizon, min(first+1, len(s.Rows)))
	sc := &result.EventScore{}
	sc.Before = before(s, quiet, first)
	judge := p.judge(s, sc.Before)
	n := p.recoverSeconds()
	end := horizon
	for j := done; j+n <= horizon; j++ {
		if allMet(judge, j, n) {
			sc.RecoveredS = secondsPtr(max(0, time.Duration(j)*s.Interval-iss))
			end = j
			break
		}
	}
	sc.CutByNextEvent = sc.RecoveredS == nil && horizon < wholeSeconds(s)
	for j := first; j < end; j++ {
		if !judge(j) {
			sc.SecondsOutOfSLO++
		}
	}
	sc.Inside = window(s, span(first, max(end, min(done+1, horizon), min(first+1, len(s.Rows)))))
	spanEnd := iss + s.Interval
	if !r.Completed.IsZero() {
		spanEnd = r.Completed.Sub(s.Start) + s.Interval
	}
	sc.NoReplyMS = unavailable(s, iss, spanEnd)
	return sc
}

// horizons is, for each record, the second the next event issued in a
// later second starts in (the run's last whole second when none).
func horizons(records []Record, s Series) []int {
	whole := wholeSeconds(s)
	out := make([]int, len(records))
	for i, r := range records {
		out[i] = whole
		if r.Issued.IsZero() {
			continue
		}
		first := int(max(r.Issued.Sub(s.Start), 0) / s.Interval)
		for _, o := range records[i+1:] {
			if o.Issued.IsZero() || o.Err != nil && !errors.Is(o.Err, ErrNotSeen) {
				continue
			}
			if f := int(max(o.Issued.Sub(s.Start), 0) / s.Interval); f > first {
				out[i] = min(out[i], f)
			}
		}
	}
	return out
}

// wholeSeconds is how many of the series' seconds were measured whole.
func wholeSeconds(s Series) int {
	return min(len(s.Rows), int(s.Elapsed/s.Interval))
}

func allMet(judge func(int) bool, from, n int) bool {
	for j := from; j < from+n; j++ {
		if !judge(j) {
			return false
		}
	}
	return true
}

// judge says whether second j met the SLO: the plan's, or within twice
// the p99 before the event with no error.
func (p *Plan) judge(s Series, before result.EventWindow) func(int) bool {
	return func(j int) bool {
		row := s.Rows[j]
		if row.Requests == 0 {
			return false
		}
		h := decode(s, j)
		if h == nil {
			return false
		}
		errRate := float64(row.Errors+row.TransportErrors) / float64(row.Requests)
		if p.SLO != nil {
			return p.SLO(h, errRate)
		}
		if errRate > 0 {
			return false
		}
		return before.P99US == nil || float64(h.ValueAtQuantile(99)) <= 2**before.P99US+1000
	}
}

// decode is second j's histogram (nil when it kept none).
func decode(s Series, j int) *hdr.Histogram {
	if j >= len(s.Seconds) || s.Seconds[j].Histogram == "" {
		return nil
	}
	h, err := result.DecodeHistogram(s.Seconds[j].Histogram)
	if err != nil {
		return nil
	}
	return h
}

// quietSeconds marks the whole seconds no scored event was in, from the
// second it was issued in to the one it completed in (to its horizon
// when its end was not seen); Score unmarks each event's whole window,
// to its recovery, as it goes.
func quietSeconds(records []Record, s Series, hz []int) []bool {
	quiet := make([]bool, wholeSeconds(s))
	for i := range quiet {
		quiet[i] = true
	}
	for i, r := range records {
		if r.Issued.IsZero() || r.Err != nil && !errors.Is(r.Err, ErrNotSeen) {
			continue
		}
		first, last := int(max(r.Issued.Sub(s.Start), 0)/s.Interval), hz[i]-1
		if !r.Completed.IsZero() {
			last = int(r.Completed.Sub(s.Start) / s.Interval)
		}
		for j := first; j <= last && j < len(quiet); j++ {
			quiet[j] = false
		}
	}
	return quiet
}

// before is the Before window of an event issued in second first: the
// last beforeSeconds quiet seconds before it, or, when there is none,
// the run's first quiet seconds after it.
func before(s Series, quiet []bool, first int) result.EventWindow {
	var picked []int
	for j := min(first, len(quiet)) - 1; j >= 0 && len(picked) < beforeSeconds; j-- {
		if quiet[j] {
			picked = append([]int{j}, picked...)
		}
	}
	for j := first + 1; j < len(quiet) && len(picked) == 0; j++ {
		for k := j; k < len(quiet) && len(picked) < beforeSeconds && quiet[k]; k++ {
			picked = append(picked, k)
		}
	}
	if len(picked) == 0 {
		return result.EventWindow{FromS: first, ToS: first}
	}
	return window(s, picked)
}

// span is the seconds [from, to).
func span(from, to int) []int {
	var out []int
	for j := from; j < to; j++ {
		out = append(out, j)
	}
	return out
}

// window is the seconds given (in order) merged.
func window(s Series, seconds []int) result.EventWindow {
	w := result.EventWindow{}
	if len(seconds) > 0 {
		w.FromS, w.ToS = seconds[0], seconds[len(seconds)-1]+1
	}
	merged := stats.NewHistogram()
	for _, j := range seconds {
		if j >= len(s.Rows) {
			break
		}
		w.Seconds++
		row := s.Rows[j]
		w.Requests += row.Requests
		w.Errors += row.Errors
		w.TransportErrors += row.TransportErrors
		w.ConnectFailures += row.ConnectFailures
		if j < len(s.Seconds) {
			for k, n := range s.Seconds[j].Errors {
				if w.ErrorsByClass == nil {
					w.ErrorsByClass = map[string]int64{}
				}
				w.ErrorsByClass[k] += n
			}
		}
		if h := decode(s, j); h != nil {
			merged.Merge(h)
		}
	}
	if merged.TotalCount() > 0 {
		f := func(v int64) *float64 { x := float64(v); return &x }
		w.P99US, w.P999US, w.MaxUS = f(merged.ValueAtQuantile(99)), f(merged.ValueAtQuantile(99.9)), f(merged.Max())
	}
	return w
}

// unavailable is the longest stretch of slots with no reply that was no
// error, among those that overlap [from, to), in milliseconds.
func unavailable(s Series, from, to time.Duration) float64 {
	slot := s.Interval / stats.SlotsPerInterval
	total := int(s.Elapsed / slot)
	empty := func(g int) bool {
		j, i := g/stats.SlotsPerInterval, g%stats.SlotsPerInterval
		return j >= len(s.Seconds) || !s.Seconds[j].Slots.Has(i)
	}
	lo, hi := int(max(from, 0)/slot), min(int(to/slot), total)
	longest := 0
	for g := lo; g < hi; g++ {
		if !empty(g) {
			continue
		}
		a, b := g, g
		for a > 0 && empty(a-1) {
			a--
		}
		for b+1 < total && empty(b+1) {
			b++
		}
		longest = max(longest, b-a+1)
		g = b
	}
	return float64(time.Duration(longest)*slot) / float64(time.Millisecond)
}

// cycles is the spread of each repeated event's scores.
func cycles(evs []result.Event) []result.EventCycles {
	var out []result.EventCycles
	by := map[string][]result.Event{}
	var order []string
	for _, e := range evs {
		if e.Cycle == 0 {
			continue
		}
		if _, ok := by[e.Text]; !ok {
			order = append(order, e.Text)
		}
		by[e.Text] = append(by[e.Text], e)
	}
	for _, text := range order {
		c := result.EventCycles{Text: text, Cycles: len(by[text])}
		var un, rec, oos, p99 []float64
		for _, e := range by[text] {
			if e.Score == nil {
				continue
			}
			un = append(un, e.Score.NoReplyMS)
			oos = append(oos, float64(e.Score.SecondsOutOfSLO))
			if e.Score.RecoveredS != nil {
				rec = append(rec, *e.Score.RecoveredS)
			}
			if e.Score.Inside.P99US != nil {
				p99 = append(p99, *e.Score.Inside.P99US)
			}
		}
		c.NoReplyMS, c.RecoveredS, c.SecondsOutOfSLO, c.InsideP99US = spread(un), spread(rec), spread(oos), spread(p99)
		out = append(out, c)
	}
	return out
}

// spread is the minimum, median and maximum of v.
func spread(v []float64) result.Spread {
	if len(v) == 0 {
		return result.Spread{}
	}
	v = slices.Clone(v)
	slices.Sort(v)
	m := v[len(v)/2]
	if len(v)%2 == 0 {
		m = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return result.Spread{Count: len(v), Min: v[0], Median: m, Max: v[len(v)-1]}
}

// Describe is one line per event: what it was, when, and how it scored.
func Describe(e result.Event) string {
	s := fmt.Sprintf("%s at %.1fs", e.Text, e.AtS)
	if e.Cycle > 0 {
		s += fmt.Sprintf(" (cycle %d)", e.Cycle)
	}
	return s
}
