package htmlreport

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// writeBitmap draws a bitmap comparison: memory and each operation's mean
// latency against cardinality, one line per structure, and the tables.
func writeBitmap(b *strings.Builder, name string, d *result.BitmapComparison) {
	fmt.Fprintf(b, "<h2>Bitmap comparison — %s</h2><ul class=\"files\">", html.EscapeString(name))
	for _, s := range d.Config.Structures {
		t := d.Config.Targets[s]
		fmt.Fprintf(b, "<li><b>%s</b> on %s</li>", html.EscapeString(s), html.EscapeString(report.TargetLine(&t)))
	}
	b.WriteString("</ul>")
	for _, w := range d.Warnings {
		fmt.Fprintf(b, "<p class=\"meta\" style=\"color:#a40000;font-weight:600\">!! %s</p>", html.EscapeString(w))
	}
	if len(d.Points) == 0 {
		return
	}
	for i := range d.Points {
		p := &d.Points[i]
		ids := make([]string, len(p.Keys))
		for k, key := range p.Keys {
			ids[k] = fmt.Sprint(key.Cardinality)
		}
		fmt.Fprintf(b, "<h3>point %d: %d keys of %s IDs, IDs below %d</h3>", i+1, len(p.Keys), strings.Join(ids, ", "), p.Universe)
		writeTable(b, report.BitmapOps(p, d.Config.Connections))
	}
	if t := report.BitmapWins(d); t != nil {
		writeTable(b, *t)
		b.WriteString("<p class=\"meta\">crossovers:</p>")
		writeNotes(b, report.BitmapCrossovers(d))
	}
	mem := func(p result.BitmapPoint, s string) (float64, bool) {
		for _, st := range p.Structures {
			if st.Name == s {
				return float64(st.MemoryBytes), st.MemoryBytes > 0
			}
		}
		return 0, false
	}
	b.WriteString(bitmapChart(d, "Memory (MEMORY USAGE, all keys) against cardinality", "bytes", mem))
	for oi, op := range d.Config.Operations {
		lat := func(p result.BitmapPoint, s string) (float64, bool) {
			if oi >= len(p.Operations) {
				return 0, false
			}
			for _, r := range p.Operations[oi].Results {
				if r.Structure == s && r.Closed != nil && r.Closed.Totals.Ops > 0 {
					return r.Closed.Totals.Latency.Mean / 1000, true
				}
			}
			return 0, false
		}
		b.WriteString(bitmapChart(d, op+": closed-loop mean latency against cardinality", "ms", lat))
	}
	b.WriteString(`<table><tr><th>cardinality</th><th>structure</th><th>MEMORY USAGE</th><th>bytes per ID</th><th>data bytes</th></tr>`)
	for _, p := range d.Points {
		for _, s := range p.Structures {
			fmt.Fprintf(b, "<tr><td>%d</td><td>%s</td><td>%d</td><td>%.2f</td><td>%d</td></tr>", p.Cardinality, html.EscapeString(s.Name),
				s.MemoryBytes, float64(s.MemoryBytes)/math.Max(1, float64(keysCard(p))), s.DataBytes)
		}
	}
	b.WriteString("</table>")
}

func keysCard(p result.BitmapPoint) uint64 {
	var n uint64
	for _, k := range p.Keys {
		n += k.Cardinality
	}
	return n
}

// bitmapChart draws f (a value per point and structure) against the
// points' cardinality, both on log axes.
func bitmapChart(d *result.BitmapComparison, title, unit string, f func(result.BitmapPoint, string) (float64, bool)) string {
	var lines []line
	lo, hi := math.Inf(1), 0.0
	for i, s := range d.Config.Structures {
		l := line{name: s, color: color(i)}
		for _, p := range d.Points {
			if v, ok := f(p, s); ok && v > 0 {
				l.pts = append(l.pts, [2]float64{float64(p.Cardinality), v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		if len(l.pts) > 0 {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	cmin, cmax := float64(d.Points[0].Cardinality), float64(d.Points[len(d.Points)-1].Cardinality)
	if cmax <= cmin {
		cmin, cmax = cmin/2, cmax*2
	}
	return svgChart(title, "IDs per key (cardinality)", unit, niceAxis(cmin, cmax, true, number), niceAxis(lo, hi, true, number), lines)
}

// writeRoaringStat draws TR.STAT sampling tables.
func writeRoaringStat(b *strings.Builder, name string, d *result.RoaringStat) {
	fmt.Fprintf(b, "<h2>TR.STAT memory — %s</h2><p class=\"meta\">target %s</p>", html.EscapeString(name), html.EscapeString(report.TargetLine(&d.Target)))
	var lines []line
	lo, hi := math.Inf(1), 0.0
	for i, t := range d.Tables {
		l := line{name: t.Distribution, color: color(i)}
		for _, r := range t.Rows {
			if r.Cardinality > 0 && r.BytesPerBit > 0 {
				l.pts = append(l.pts, [2]float64{float64(r.Cardinality), r.BytesPerBit})
				lo, hi = math.Min(lo, r.BytesPerBit), math.Max(hi, r.BytesPerBit)
			}
		}
		if len(l.pts) > 0 {
			lines = append(lines, l)
		}
	}
	var xmax float64
	for _, l := range lines {
		for _, p := range l.pts {
			xmax = math.Max(xmax, p[0])
		}
	}
	if len(lines) > 0 {
		b.WriteString(svgChart("Container bytes per set bit against cardinality", "cardinality", "bytes per bit",
			niceAxis(0, xmax, false, number), niceAxis(lo, hi, true, number), lines))
	}
	b.WriteString(`<table><tr><th>distribution</th><th>cardinality</th><th>heap bytes</th><th>predicted</th><th>bytes/bit</th></tr>`)
	for _, t := range d.Tables {
		for _, r := range t.Rows {
			fmt.Fprintf(b, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%.3f</td></tr>", html.EscapeString(t.Distribution),
				r.Cardinality, r.HeapBytes, r.Predicted, r.BytesPerBit)
		}
	}
	b.WriteString("</table>")
}
