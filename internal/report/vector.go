package report

import (
	"fmt"

	"github.com/tairbench/tairbench/pkg/result"
)

// VectorPoints is a vector benchmark's sweep, one row per engine and
// point: its search parameter, recall, closed-loop QPS and latency, and,
// with an open-loop rate, that run's headline p99.
func VectorPoints(d *result.VectorBench) Table {
	c := d.Config
	t := Table{Title: "the sweep, one row per point", Header: []string{"engine", "param", fmt.Sprintf("recall@%d", c.K), "QPS", "p50 ms", "p99 ms"}}
	if c.Rate > 0 {
		t.Header = append(t.Header, "open p99 ms")
		t.Notes = append(t.Notes, fmt.Sprintf("p50, p99: closed loop, %s; open p99: at %.0f/s, %s", result.FromSend.Label(), c.Rate,
			result.FromIntendedStart.Label()))
	}
	for _, e := range d.Engines {
		for _, p := range e.Points {
			p50, p99 := "—", "—"
			if p.Closed != nil {
				l := p.Closed.Totals.Latency
				p50, p99 = fmt.Sprintf("%.3f", l.P50/1000), fmt.Sprintf("%.3f", l.P99/1000)
			}
			row := []string{e.Engine, VectorParam(e, p), fmt.Sprintf("%.4f", p.Recall), fmt.Sprintf("%.0f", p.QPS), p50, p99}
			if c.Rate > 0 {
				open := "—"
				if p.Open != nil {
					l, _ := p.Open.Totals.Headline()
					open = fmt.Sprintf("%.3f", l.P99/1000)
				}
				row = append(row, open)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// VectorParam names a point's search parameter ("ef=64"), "-" when the
// engine has none.
func VectorParam(e result.VectorEngine, p result.VectorPoint) string {
	if p.Param > 0 {
		return fmt.Sprintf("%s=%d", e.Param, p.Param)
	}
	return "-"
}
