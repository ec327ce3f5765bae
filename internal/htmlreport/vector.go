package htmlreport

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// writeVector leads with the sweep's table, one row per point, as the
// terminal prints it, and QPS at recall; then draws QPS against recall per
// engine (QPS on a log axis, as ann-benchmarks plots it), each point marked
// and labelled with its search parameter.
func writeVector(b *strings.Builder, name string, d *result.VectorBench) {
	c := d.Config
	fmt.Fprintf(b, "<h2>Vector search — %s</h2><p class=\"meta\">%s: %d base vectors, %d queries, %d dims, %s, k=%d, %s</p>",
		html.EscapeString(name), html.EscapeString(c.Dataset), c.Base, c.Queries, c.Dims, html.EscapeString(c.Metric), c.K,
		html.EscapeString(c.Algorithm))
	if c.Stream { // no sweep: the stream's windows, as the terminal prints them
		writeTable(b, report.VectorStream(d))
		writeNotes(b, d.Warnings)
		return
	}
	var lines []line
	lo, hi := math.Inf(1), 0.0
	rlo := 1.0
	for i, e := range d.Engines {
		l := line{name: e.Engine + " (" + e.Target + ")", color: color(i), marks: true}
		var pts []labelled
		for _, p := range e.Points {
			if p.QPS > 0 {
				pts = append(pts, labelled{[2]float64{p.Recall, p.QPS}, report.VectorParam(e, p)})
				lo, hi, rlo = math.Min(lo, p.QPS), math.Max(hi, p.QPS), math.Min(rlo, p.Recall)
			}
		}
		slices.SortStableFunc(pts, func(a, b labelled) int { return cmp.Compare(a.pt[0], b.pt[0]) })
		for _, p := range pts {
			l.pts, l.labels = append(l.pts, p.pt), append(l.labels, p.label)
		}
		if len(l.pts) > 0 {
			lines = append(lines, l)
		}
	}
	writeTable(b, report.VectorPoints(d))
	b.WriteString("<table><tr><th>engine</th>")
	if len(d.Engines) > 0 {
		for _, a := range d.Engines[0].AtRecall {
			fmt.Fprintf(b, "<th>QPS at recall ≥ %.2f</th>", a.Recall)
		}
	}
	b.WriteString("<th>insert/s</th><th>build s</th></tr>")
	for _, e := range d.Engines {
		fmt.Fprintf(b, "<tr><td>%s</td>", html.EscapeString(e.Engine))
		for _, a := range e.AtRecall {
			if a.QPS == 0 {
				b.WriteString("<td>not reached</td>")
				continue
			}
			fmt.Fprintf(b, "<td title=\"%s\">%.0f</td>", html.EscapeString(a.How), a.QPS)
		}
		fmt.Fprintf(b, "<td>%.0f</td><td>%.1f</td></tr>", e.InsertPerSec, e.BuildSeconds)
	}
	b.WriteString("</table>")
	if len(d.Config.Selectivities) > 0 {
		writeTable(b, report.VectorFiltered(d))
	}
	writeNotes(b, d.Warnings)
	if len(lines) > 0 {
		pct := func(v float64) string { return fmt.Sprintf("%.2f", v) }
		b.WriteString(svgChart(fmt.Sprintf("QPS against recall@%d (up and right is better)", c.K), fmt.Sprintf("recall@%d", c.K),
			"queries/s", niceAxis(math.Min(rlo, 0.9), 1, false, pct), niceAxis(lo, hi, true, number), lines))
	}
}

// labelled is a chart point with its label.
type labelled struct {
	pt    [2]float64
	label string
}
