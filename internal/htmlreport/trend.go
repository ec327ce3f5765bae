package htmlreport

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/tairbench/tairbench/internal/report"
)

// writeTrend draws a trend from the results store: the terminal's table,
// then the figure per run with the spread of its whole seconds (lowest
// and highest, dashed) and its change points labelled.
func writeTrend(b *strings.Builder, t report.Trend) {
	fmt.Fprintf(b, "<h2>Trend — %s</h2>", html.EscapeString(t.Title))
	writeTable(b, report.TrendTable(t))
	value := line{name: t.Label, color: color(0), marks: true, labels: make([]string, len(t.Points))}
	lowest := line{name: "lowest whole second", color: color(8), dash: true, plain: true}
	highest := line{name: "highest whole second", color: color(8), dash: true, plain: true}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range t.Points {
		x := float64(i + 1)
		value.pts = append(value.pts, [2]float64{x, p.Value})
		lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
		if p.Hi > 0 {
			lowest.pts = append(lowest.pts, [2]float64{x, p.Lo})
			highest.pts = append(highest.pts, [2]float64{x, p.Hi})
			lo, hi = math.Min(lo, p.Lo), math.Max(hi, p.Hi)
		}
		if p.ChangePoint {
			value.labels[i] = fmt.Sprintf("%s: run %d, %+.1f %%", report.ChangeMark, p.ID, 100*p.Change)
		}
	}
	if len(value.pts) == 0 {
		b.WriteString(`<p class="meta">No run to draw.</p>`)
		return
	}
	if hi <= lo {
		lo, hi = lo*0.9, hi*1.1
	}
	var lines []line
	if len(lowest.pts) > 0 {
		lines = append(lines, lowest, highest)
	}
	lines = append(lines, value) // drawn last: on top of its spread
	title := fmt.Sprintf("%s over %d stored runs", t.Label, len(t.Points))
	b.WriteString(svgChart(title, "stored run, oldest first (the table gives each one's id and date)", t.Label,
		niceAxis(0.5, float64(len(t.Points))+0.5, false, number), niceAxis(math.Max(0, lo-(hi-lo)*0.1), hi+(hi-lo)*0.1, false, number), lines))
}
