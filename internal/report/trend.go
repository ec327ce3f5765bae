package report

import (
	"fmt"
	"time"
)

// Trend is one workload's figure over stored runs, oldest first, as the
// terminal and the HTML report show it.
type Trend struct {
	// Title names the workload and its target kind; Label the figure
	// (with its latency measure); Window how many earlier runs each run
	// is judged against.
	Title, Label string
	Window       int
	Points       []TrendPoint
}

// TrendPoint is one run of a trend.
type TrendPoint struct {
	ID      int64
	Started time.Time
	Tags    string
	// Value is the run's figure; Lo and Hi its slowest and fastest whole
	// seconds (its spread).
	Value, Lo, Hi float64
	// Judged is set when the run was judged against earlier runs: Change
	// from their median, Outcome and Reason the verdict, ChangePoint when
	// it moved beyond the regression line, established.
	Judged          bool
	Change          float64
	Outcome, Reason string
	ChangePoint     bool
}

// ChangeMark is how a change point is marked on every surface.
const ChangeMark = "◆ change point"

// TrendTable is a trend as a verdict table: a row per run, change points
// marked.
func TrendTable(t Trend) Table {
	tb := Table{
		Title:  fmt.Sprintf("%s: %s, %d runs", t.Title, t.Label, len(t.Points)),
		Header: []string{"id", "started (UTC)", "tags", "figure", "whole seconds (lowest – highest)", fmt.Sprintf("change from the median of up to %d before", t.Window), "verdict"},
	}
	changes := 0
	for _, p := range t.Points {
		change, verdict := "-", "(first run: nothing before it)"
		if p.Judged {
			change, verdict = fmt.Sprintf("%+.1f %%", 100*p.Change), p.Outcome+": "+p.Reason
		}
		if p.ChangePoint {
			verdict = ChangeMark + ", " + verdict
			changes++
		}
		spread := "-"
		if p.Hi > 0 {
			spread = Figure(p.Lo) + " – " + Figure(p.Hi)
		}
		tb.Rows = append(tb.Rows, []string{fmt.Sprint(p.ID), p.Started.UTC().Format("2006-01-02 15:04:05"), orDash(p.Tags), Figure(p.Value),
			spread, change, verdict})
	}
	tb.Notes = append(tb.Notes, fmt.Sprintf("Each run is judged against the median of up to %d runs before it, as 'tairbench gate' judges: %d change point(s).",
		t.Window, changes))
	return tb
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Figure is a measured figure as tables print it: whole numbers from 100
// up, three significant digits below, "-" for none.
func Figure(x float64) string {
	switch {
	case x == 0:
		return "-"
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}
