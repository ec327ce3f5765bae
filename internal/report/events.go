package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// writeEvents prints the events inside a run (EventsTable).
func writeEvents(b *strings.Builder, ev *result.Events) {
	WriteTable(b, EventsTable(ev))
}

// EventsTable is the events inside a run, as the terminal and the HTML
// report show them: when each was issued and completed, its score, the
// server's signals; then the spread over repeated cycles.
func EventsTable(ev *result.Events) Table {
	t := Table{
		Title: fmt.Sprintf("events (%d), scored on the run's own seconds, latency as the run's headline; recovered: %d s in a row with %s",
			len(ev.Events), ev.RecoverSeconds, ev.SLO),
		Header: []string{"event", "issued s", "done s", "no reply ms", "recovered", "out of SLO s", "p99 before→in ms",
			"max before→in ms", "errors in", "server"},
	}
	for _, e := range ev.Events {
		row := []string{eventName(e), optS(e.IssuedS), optS(e.CompletedS), "—", "—", "—", "—", "—", "—", eventNotes(e)}
		if sc := e.Score; sc != nil {
			row[3], row[4], row[5] = fmt.Sprintf("%.0f", sc.NoReplyMS), recovered(sc), fmt.Sprint(sc.SecondsOutOfSLO)
			row[6], row[7] = pair(sc.Before.P99US, sc.Inside.P99US), pair(sc.Before.MaxUS, sc.Inside.MaxUS)
			row[8] = errorsText(sc.Inside)
		}
		t.Rows = append(t.Rows, row)
	}
	for _, c := range ev.Cycles {
		t.Notes = append(t.Notes, fmt.Sprintf("over %d cycles of %s (min / median / max): no reply %s ms, recovered %s s, out of SLO %s s, p99 inside %s ms",
			c.Cycles, c.Text, spreadText(c.NoReplyMS, 1), spreadText(c.RecoveredS, 1), spreadText(c.SecondsOutOfSLO, 1),
			spreadText(c.InsideP99US, 1000)))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("no reply: the longest stretch without a reply that was no error, on any connection, around the event (to %.1f ms)", ev.SlotMS))
	return t
}

// eventName is an event's text, with its cycle when repeated.
func eventName(e result.Event) string {
	if e.Cycle > 0 {
		return fmt.Sprintf("%s #%d", e.Text, e.Cycle)
	}
	return e.Text
}

// eventNotes is an event's error and the server's signals, on one line.
func eventNotes(e result.Event) string {
	var parts []string
	if e.Error != "" {
		parts = append(parts, "failed: "+Clip(e.Error, 120))
	}
	keys := make([]string, 0, len(e.Signals))
	for k := range e.Signals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+" "+e.Signals[k])
	}
	return strings.Join(parts, "; ")
}

func optS(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v)
}

func recovered(sc *result.EventScore) string {
	switch {
	case sc.RecoveredS != nil:
		return fmt.Sprintf("%.0f s", *sc.RecoveredS)
	case sc.CutByNextEvent:
		return "next came"
	default:
		return "not seen"
	}
}

// pair is a before→inside latency pair in ms.
func pair(before, inside *float64) string {
	f := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return ms(*v)
	}
	return f(before) + "→" + f(inside)
}

// spreadText writes a spread, each value divided by div.
func spreadText(s result.Spread, div float64) string {
	if s.Count == 0 {
		return "—"
	}
	f := func(v float64) string { return fmt.Sprintf("%.3g", v/div) }
	return f(s.Min) + " / " + f(s.Median) + " / " + f(s.Max)
}

// writeLedger prints the write ledger's line.
func writeLedger(b *strings.Builder, l *result.Ledger) {
	acked := "acknowledged"
	if l.WaitReplicas > 0 {
		acked = fmt.Sprintf("acknowledged by the primary and %d replica(s) (WAIT)", l.WaitReplicas)
	}
	fmt.Fprintf(b, "ledger       %d writes sent to %d counters: %d %s, %d unacknowledged, %d refused\n",
		l.Sent, l.Keys, l.Acknowledged, acked, l.Unacknowledged, l.Refused)
	if l.ReadError != "" {
		fmt.Fprintf(b, "             not read back: %s\n", l.ReadError)
		return
	}
	fmt.Fprintf(b, "             read back: %d acknowledged writes lost, %d unacknowledged writes applied, %d applied twice\n",
		l.LostAcknowledged, l.UnacknowledgedApplied, l.AppliedTwice)
}

// EventsCompare pairs two runs' events, by their text and cycle, and
// sets B's scores beside A's (the same failover on Redis and on Tair).
// Over cycles it pairs each event's medians.
func EventsCompare(a, b *result.Events) Table {
	t := Table{Title: "events, A and B: each event's score in A, then in B",
		Header: []string{"event", "no reply ms A / B", "recovered s A / B", "out of SLO s A / B", "p99 inside ms A / B", "max inside ms A / B"}}
	key := func(e result.Event) string { return fmt.Sprintf("%s #%d", e.Text, e.Cycle) }
	inB := map[string]result.Event{}
	if b != nil {
		for _, e := range b.Events {
			inB[key(e)] = e
		}
	}
	seen := map[string]bool{}
	var evA []result.Event
	if a != nil {
		evA = a.Events
	}
	for _, e := range evA {
		k := key(e)
		seen[k] = true
		o, ok := inB[k]
		name := eventName(e)
		if !ok {
			t.Rows = append(t.Rows, []string{name, "only in A", "", "", "", ""})
			continue
		}
		t.Rows = append(t.Rows, []string{name,
			both(e.Score, o.Score, func(s *result.EventScore) string { return fmt.Sprintf("%.0f", s.NoReplyMS) }),
			both(e.Score, o.Score, recovered),
			both(e.Score, o.Score, func(s *result.EventScore) string { return fmt.Sprint(s.SecondsOutOfSLO) }),
			both(e.Score, o.Score, func(s *result.EventScore) string { return optMS(s.Inside.P99US) }),
			both(e.Score, o.Score, func(s *result.EventScore) string { return optMS(s.Inside.MaxUS) })})
	}
	if b != nil {
		for _, e := range b.Events {
			if !seen[key(e)] {
				t.Rows = append(t.Rows, []string{eventName(e), "only in B", "", "", "", ""})
			}
		}
	}
	if a != nil && b != nil && a.SLO != b.SLO {
		t.Notes = append(t.Notes, fmt.Sprintf("the runs judged recovery differently: A by %s, B by %s", a.SLO, b.SLO))
	}
	return t
}

// both is a figure of A's score and B's ("—" for a score not there).
func both(a, b *result.EventScore, f func(*result.EventScore) string) string {
	g := func(s *result.EventScore) string {
		if s == nil {
			return "—"
		}
		return f(s)
	}
	return g(a) + " / " + g(b)
}

func optMS(us *float64) string { return OptMS(us) }

// OptMS is a latency in µs as milliseconds, "—" when there is none.
func OptMS(us *float64) string {
	if us == nil {
		return "—"
	}
	return ms(*us)
}

// LedgerTable is one run's write ledger as a table (the HTML report's).
func LedgerTable(l *result.Ledger) Table {
	t := LedgerCompare(l, nil)
	t.Title, t.Header = "write ledger (--verify-writes): the counters read back after the run", []string{"figure", "writes"}
	for i := range t.Rows {
		t.Rows[i] = t.Rows[i][:2]
	}
	if l.ReadError != "" {
		t.Notes = append(t.Notes, "not read back: "+l.ReadError)
	}
	return t
}

// LedgerCompare sets two runs' write ledgers side by side.
func LedgerCompare(a, b *result.Ledger) Table {
	t := Table{Title: "write ledger, A and B", Header: []string{"figure", "A", "B"}}
	f := func(l *result.Ledger, v func(*result.Ledger) int64) string {
		if l == nil {
			return "—"
		}
		return fmt.Sprint(v(l))
	}
	for _, r := range []struct {
		name string
		v    func(*result.Ledger) int64
	}{
		{"writes sent", func(l *result.Ledger) int64 { return l.Sent }},
		{"acknowledged", func(l *result.Ledger) int64 { return l.Acknowledged }},
		{"acknowledged writes lost", func(l *result.Ledger) int64 { return l.LostAcknowledged }},
		{"unacknowledged writes applied", func(l *result.Ledger) int64 { return l.UnacknowledgedApplied }},
		{"applied twice", func(l *result.Ledger) int64 { return l.AppliedTwice }},
	} {
		t.Rows = append(t.Rows, []string{r.name, f(a, r.v), f(b, r.v)})
	}
	return t
}

// errorsText is a window's errors, by class when there are any.
func errorsText(w result.EventWindow) string {
	n := w.Errors + w.ConnectFailures
	if n == 0 || len(w.ErrorsByClass) == 0 {
		return fmt.Sprint(n)
	}
	keys := make([]string, 0, len(w.ErrorsByClass))
	for k := range w.ErrorsByClass {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return w.ErrorsByClass[keys[i]] > w.ErrorsByClass[keys[j]] || w.ErrorsByClass[keys[i]] == w.ErrorsByClass[keys[j]] && keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, w.ErrorsByClass[k])
	}
	return fmt.Sprintf("%d (%s)", n, strings.Join(parts, ", "))
}
