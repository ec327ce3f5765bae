package htmlreport

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// line is one series of a chart.
type line struct {
	name  string
	color string
	dash  bool
	pts   [][2]float64
	// marks draws a marker on each point (always drawn for a line of
	// markAtMost points or fewer, so that a single point shows); labels,
	// when given, write one beside each marked point.
	marks  bool
	labels []string
	// plain draws no markers at all (a spread's edges, drawn under the
	// figure they surround).
	plain bool
	// hollow marks points (by index) drawn as hollow markers: partial
	// seconds, with hollowWhy as their tooltip.
	hollow map[int]string
}

// markAtMost is the most points a line may have for its points to be
// marked without asking: a line through one point draws nothing.
const markAtMost = 12

// axis maps values to pixels; log axes take log10 of positive values.
type axis struct {
	min, max float64
	log      bool
	// ticks are the values with a grid line, labels their text.
	ticks  []float64
	labels []string
}

func (a axis) pos(v float64, px float64) float64 {
	if a.log {
		v = math.Log10(math.Max(v, 1e-9))
	}
	lo, hi := a.min, a.max
	if a.log {
		lo, hi = math.Log10(a.min), math.Log10(a.max)
	}
	if hi == lo {
		return 0
	}
	return (v - lo) / (hi - lo) * px
}

// niceAxis spans [lo, hi] with about five round ticks.
func niceAxis(lo, hi float64, log bool, format func(float64) string) axis {
	if log {
		lo, hi = math.Max(lo, 1e-3), math.Max(hi, lo*10)
		a := axis{min: math.Pow(10, math.Floor(math.Log10(lo))), max: math.Pow(10, math.Ceil(math.Log10(hi))), log: true}
		for v := a.min; v <= a.max*1.0001; v *= 10 {
			a.ticks = append(a.ticks, v)
			a.labels = append(a.labels, format(v))
		}
		return a
	}
	if hi <= lo {
		hi = lo + 1
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 6 {
			step *= m
			break
		}
	}
	a := axis{min: math.Floor(lo/step) * step, max: math.Ceil(hi/step) * step}
	for v := a.min; v <= a.max+step/2; v += step {
		a.ticks = append(a.ticks, v)
		a.labels = append(a.labels, format(v))
	}
	return a
}

// number prints a value compactly (12k, 1.5M).
func number(v float64) string {
	switch {
	case math.Abs(v) >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case math.Abs(v) >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

const (
	chartW, chartH = 760.0, 300.0
	padL, padB     = 70.0, 40.0
	padT, padR     = 30.0, 20.0
)

// svgChart draws lines on x and y axes, with a legend. Points outside
// the axes are clipped.
func svgChart(title, xLabel, yLabel string, x, y axis, lines []line, marks ...marker) string {
	var b strings.Builder
	w, h := chartW-padL-padR, chartH-padT-padB
	fmt.Fprintf(&b, `<figure><svg class="chart" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="%s">`,
		chartW, chartH+18*float64((len(lines)+1)/2), chartW, chartH+18*float64((len(lines)+1)/2), html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%.0f" y="18" class="title">%s</text>`, padL, html.EscapeString(title))
	// Grid and tick labels.
	for i, v := range y.ticks {
		py := padT + h - y.pos(v, h)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="grid"/>`, padL, py, padL+w, py)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="end">%s</text>`, padL-6, py+4, html.EscapeString(y.labels[i]))
	}
	for i, v := range x.ticks {
		px := padL + x.pos(v, w)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="grid"/>`, px, padT, px, padT+h)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="middle">%s</text>`, px, padT+h+16, html.EscapeString(x.labels[i]))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="label" text-anchor="middle">%s</text>`, padL+w/2, padT+h+34, html.EscapeString(xLabel))
	fmt.Fprintf(&b, `<text x="14" y="%.1f" class="label" text-anchor="middle" transform="rotate(-90 14 %.1f)">%s</text>`,
		padT+h/2, padT+h/2, html.EscapeString(yLabel))
	fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" class="frame"/>`, padL, padT, w, h)
	writeMarkers(&b, marks, x, w, h)
	for _, l := range lines {
		var pts strings.Builder
		for _, p := range l.pts {
			if math.IsNaN(p[1]) || (y.log && p[1] <= 0) {
				continue
			}
			px, py := padL+x.pos(p[0], w), padT+h-y.pos(p[1], h)
			px, py = math.Max(padL, math.Min(padL+w, px)), math.Max(padT, math.Min(padT+h, py))
			fmt.Fprintf(&pts, "%.1f,%.1f ", px, py)
		}
		dash := ""
		if l.dash {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline class="data" fill="none" stroke="%s" stroke-width="2"%s points="%s"><title>%s</title></polyline>`,
			l.color, dash, strings.TrimSpace(pts.String()), html.EscapeString(l.name))
		writeMarks(&b, l, x, y, w, h)
	}
	for i, l := range lines {
		lx, ly := padL+float64(i%2)*(w/2), chartH+float64(i/2)*18+4
		dash := ""
		if l.dash {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"%s/>`, lx, ly, lx+24, ly, l.color, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="legend">%s</text>`, lx+30, ly+4, html.EscapeString(l.name))
	}
	b.WriteString(`</svg></figure>`)
	return b.String()
}

// marker is an event inside a run, drawn on its per-second charts: a
// line where it was issued, a band to where it completed.
type marker struct {
	from, to float64 // seconds of the run; to is NaN when not seen
	label    string
	color    string
}

// writeMarkers draws each marker (class "event") inside the frame.
func writeMarkers(b *strings.Builder, marks []marker, x axis, w, h float64) {
	for i, m := range marks {
		px := padL + x.pos(m.from, w)
		if px < padL || px > padL+w {
			continue
		}
		if !math.IsNaN(m.to) && m.to > m.from {
			pw := math.Min(padL+w, padL+x.pos(m.to, w)) - px
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" opacity="0.12" class="event-span"/>`, px, padT, pw, h, m.color)
		}
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="3 3" class="event"><title>%s</title></line>`,
			px, padT, px, padT+h, m.color, html.EscapeString(m.label))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="tick event-label" fill="%s">%s</text>`, px+3, padT+12+float64(i%3)*12, m.color, html.EscapeString(m.label))
	}
}

// palette is a color per result.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

func color(i int) string { return palette[i%len(palette)] }

// writeMarks draws l's markers (class "data mark": a point the check
// counts as drawn), their labels, and its hollow markers.
func writeMarks(b *strings.Builder, l line, x, y axis, w, h float64) {
	marks := !l.plain && (l.marks || len(l.pts) <= markAtMost)
	for i, p := range l.pts {
		why, hollow := l.hollow[i]
		if (!marks && !hollow) || math.IsNaN(p[1]) || (y.log && p[1] <= 0) {
			continue
		}
		px, py := padL+x.pos(p[0], w), padT+h-y.pos(p[1], h)
		px, py = math.Max(padL, math.Min(padL+w, px)), math.Max(padT, math.Min(padT+h, py))
		title := fmt.Sprintf("%s: %s at %s", l.name, number(p[1]), number(p[0]))
		fill := l.color
		if hollow {
			fill, title = "#fff", title+" — "+why
		}
		fmt.Fprintf(b, `<circle class="data mark" cx="%.1f" cy="%.1f" r="4" fill="%s" stroke="%s" stroke-width="2"><title>%s</title></circle>`,
			px, py, fill, l.color, html.EscapeString(title))
		if i < len(l.labels) && l.labels[i] != "" {
			// Right of the point, or left of it in the chart's last third.
			tx, anchor := px+6, "start"
			if px > padL+w*2/3 {
				tx, anchor = px-6, "end"
			}
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" class="tick" text-anchor="%s">%s</text>`, tx, py-6, anchor, html.EscapeString(l.labels[i]))
		}
	}
}
