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
		name := e.Text
		if e.Cycle > 0 {
			name = fmt.Sprintf("%s #%d", name, e.Cycle)
		}
		row := []string{name, optS(e.IssuedS), optS(e.CompletedS), "—", "—", "—", "—", "—", "—", eventNotes(e)}
		if sc := e.Score; sc != nil {
			row[3], row[4], row[5] = fmt.Sprintf("%.0f", sc.UnavailableMS), recovered(sc), fmt.Sprint(sc.SecondsOutOfSLO)
			row[6], row[7] = pair(sc.Before.P99US, sc.Inside.P99US), pair(sc.Before.MaxUS, sc.Inside.MaxUS)
			row[8] = fmt.Sprint(sc.Inside.Errors + sc.Inside.TransportErrors + sc.Inside.ConnectFailures)
		}
		t.Rows = append(t.Rows, row)
	}
	for _, c := range ev.Cycles {
		t.Notes = append(t.Notes, fmt.Sprintf("over %d cycles of %s (min / median / max): no reply %s ms, recovered %s s, out of SLO %s s, p99 inside %s ms",
			c.Cycles, c.Text, spreadText(c.UnavailableMS, 1), spreadText(c.RecoveredS, 1), spreadText(c.SecondsOutOfSLO, 1),
			spreadText(c.InsideP99US, 1000)))
	}
	t.Notes = append(t.Notes, fmt.Sprintf("no reply: the longest stretch without a reply that was no error, on any connection, around the event (to %.1f ms)", ev.SlotMS))
	return t
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
