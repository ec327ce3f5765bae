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
			p50, p99 := closedLatency(p)
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

// VectorFiltered is the filtered sweeps in one table: per engine and
// selectivity, each point's recall against the exact filtered truth, QPS
// and latency, and the QPS each engine reached at recall 0.95.
func VectorFiltered(d *result.VectorBench) Table {
	c := d.Config
	t := Table{Title: "filtered search: every search kept to a share of the vectors, one row per point",
		Header: []string{"engine", "selectivity", "filter", "param", fmt.Sprintf("recall@%d", c.K), "QPS", "p50 ms", "p99 ms"},
		Notes: []string{fmt.Sprintf("recall@%d against the exact nearest among the vectors the filter keeps (each a random share, "+
			"independent of where the vectors lie); p50, p99: closed loop, %s", c.K, result.FromSend.Label())}}
	for _, e := range d.Engines {
		for _, f := range e.Filtered {
			for _, p := range f.Points {
				p50, p99 := closedLatency(p)
				t.Rows = append(t.Rows, []string{e.Engine, fmt.Sprintf("%g %%", 100*f.Selectivity), f.Filter, VectorParam(e, p),
					fmt.Sprintf("%.4f", p.Recall), fmt.Sprintf("%.0f", p.QPS), p50, p99})
			}
			for _, a := range f.AtRecall {
				if a.Recall == 0.95 {
					t.Notes = append(t.Notes, fmt.Sprintf("%s at %g %%: QPS at recall 0.95: %s", e.Engine, 100*f.Selectivity, atRecall(a)))
				}
			}
		}
	}
	return t
}

func atRecall(a result.QPSAtRecall) string {
	if a.QPS == 0 {
		return a.How
	}
	return fmt.Sprintf("%.0f (%s)", a.QPS, a.How)
}

// closedLatency is a point's closed-loop p50 and p99 in ms ("—" unmeasured).
func closedLatency(p result.VectorPoint) (p50, p99 string) {
	if p.Closed == nil {
		return "—", "—"
	}
	l := p.Closed.Totals.Latency
	return fmt.Sprintf("%.3f", l.P50/1000), fmt.Sprintf("%.3f", l.P99/1000)
}

// VectorStream is the streaming case in one table: per engine and second
// of the stream, the index's size, the searches' count, recall and latency
// (the count and latency are the run's own per-second series); the notes
// give each engine's insert rate and insert-to-searchable delay.
func VectorStream(d *result.VectorBench) Table {
	t := Table{Header: []string{"engine", "second", "index vectors", "searches", fmt.Sprintf("recall@%d", d.Config.K), "p50 ms", "p99 ms"}}
	for _, e := range d.Engines {
		s := e.Stream
		if s == nil {
			continue
		}
		param := VectorParam(e, result.VectorPoint{Param: s.Param})
		if t.Title == "" {
			t.Title = fmt.Sprintf("streaming: from %d vectors, inserting at %.0f/s (%d a request) while searching at %.0f/s",
				s.InitialVectors, s.InsertRate, s.Batch, s.SearchRate)
		}
		for _, w := range s.Windows {
			recall, p50, p99 := "-", "-", "-" // nothing measured that second
			if w.Scored > 0 {
				recall = fmt.Sprintf("%.4f", w.Recall)
			}
			if w.Searches > 0 {
				p50, p99 = fmt.Sprintf("%.3f", w.P50US/1000), fmt.Sprintf("%.3f", w.P99US/1000)
			}
			t.Rows = append(t.Rows, []string{e.Engine, fmt.Sprintf("%.0f–%.0f", w.FromS, w.ToS), fmt.Sprint(w.IndexVectors),
				fmt.Sprint(w.Searches), recall, p50, p99})
		}
		v := s.Visible
		t.Notes = append(t.Notes,
			fmt.Sprintf("%s (%s): inserted %d vectors at %.0f/s (target %.0f/s)", e.Engine, param, s.Inserted, s.InsertedPerSec, s.InsertRate),
			fmt.Sprintf("%s: insert-to-searchable, from the insert's reply to the first search that found the vector: "+
				"p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d vectors (a probe every %.0f ms; %d not found within %.0f s)",
				e.Engine, v.P50MS, v.P99MS, v.MaxMS, v.Found, v.ResolutionMS, v.NotFound, v.GiveUpS))
		if s.Unkept > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %d searches were not scored (no room kept for them); their latency is in the run", e.Engine, s.Unkept))
		}
	}
	t.Notes = append(t.Notes, "searches and their latency (from the send) are the run's own per-second series; recall is the mean over "+
		"the searches scored in that second, each against the exact nearest of the vectors acknowledged when it was sent")
	return t
}
