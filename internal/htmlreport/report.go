// Package htmlreport renders saved results as one self-contained HTML file:
// latency percentiles on a "nines" axis (corrected and service time for
// open-loop runs), throughput, p50/p99 and errors per second, the server's
// samples, a summary table, and the suites' tables with the published and
// measured figures and their ratio as a bar. Charts are SVG written by the
// program; the page loads nothing from the network.
package htmlreport

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// now is the render time (tests fix it).
var now = time.Now

// Input is one result file.
type Input struct {
	Name string
	Doc  result.Document
}

// named is a run with the name it is shown under.
type named struct {
	name string
	run  *result.Run
}

// runsOf lists the runs a document holds that get the runs' charts at the
// page's top: a run, each test of a peer tool's command line. A track's
// runs are drawn after its tables (writeTrack).
func runsOf(in Input) []named {
	switch d := in.Doc.(type) {
	case *result.Run:
		return []named{{in.Name, d}}
	case *result.Compat:
		var out []named
		for _, t := range d.Tests {
			if t.Run != nil {
				n := in.Name
				if len(d.Tests) > 1 {
					n += ": " + t.Name
				}
				out = append(out, named{n, t.Run})
			}
		}
		return out
	case *result.Translation:
		var out []named
		for _, r := range []*result.Run{d.Original, d.Translated} {
			if r != nil {
				out = append(out, named{in.Name + ": " + r.Name, r})
			}
		}
		return out
	}
	return nil
}

// Write renders the inputs, and trends from the results store.
func Write(w io.Writer, inputs []Input, trends ...report.Trend) error {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>tairbench report</title><style>` + css + `</style></head><body>`)
	fmt.Fprintf(&b, "<h1>tairbench report</h1><p class=\"meta\">%d result file(s)%s, rendered %s. Every figure comes from the files below; nothing is loaded from the network.</p><ul class=\"files\">",
		len(inputs), trendCount(trends), now().UTC().Format(time.RFC3339))
	for _, in := range inputs {
		h := in.Doc.Head()
		fmt.Fprintf(&b, "<li><b>%s</b> — %s, tairbench %s, started %s</li>", html.EscapeString(in.Name), html.EscapeString(h.Schema),
			html.EscapeString(h.Version), h.StartedAt.Format(time.RFC3339))
	}
	b.WriteString("</ul>")
	var runs []named
	for _, in := range inputs {
		runs = append(runs, runsOf(in)...)
	}
	if len(runs) > 0 {
		writeRuns(&b, "Runs", runs)
	}
	for _, in := range inputs {
		switch d := in.Doc.(type) {
		case *result.RoaringSuite:
			writeRoaring(&b, in.Name, d)
		case *result.WhitepaperSuite:
			writeWhitepaper(&b, in.Name, d)
		case *result.CapacitySearch:
			writeCapacity(&b, in.Name, d)
		case *result.SearchComparison:
			writeSearch(&b, in.Name, d)
		case *result.BitmapComparison:
			writeBitmap(&b, in.Name, d)
		case *result.RoaringStat:
			writeRoaringStat(&b, in.Name, d)
		case *result.VectorBench:
			writeVector(&b, in.Name, d)
		case *result.TrackRun:
			writeTrack(&b, in.Name, d)
		case *result.Translation:
			fmt.Fprintf(&b, "<h2>Translated replay — %s</h2>", html.EscapeString(in.Name))
			writeTable(&b, report.TranslationTable(d))
		}
	}
	for _, t := range trends {
		writeTrend(&b, t)
	}
	b.WriteString(`<p id="check" class="meta">charts: not checked (scripts off)</p><script>` + checkJS + `</script></body></html>`)
	_, err := io.WriteString(w, b.String())
	return err
}

// nines maps a percentile to the "nines" axis: 90% → 1, 99% → 2, 99.9% → 3.
// trendCount says how many trends from the results store the page draws.
func trendCount(trends []report.Trend) string {
	if len(trends) == 0 {
		return ""
	}
	return fmt.Sprintf(" and %d trend(s) from the results store", len(trends))
}

func nines(p float64) float64 { return -math.Log10(1 - p/100) }

// percentileLine samples a histogram along the nines axis, up to what its
// count resolves.
func percentileLine(h *hdr.Histogram) [][2]float64 {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	top := math.Min(5, math.Log10(float64(h.TotalCount())))
	var pts [][2]float64
	for x := 0.0; x <= top+1e-9; x += 0.05 {
		p := 100 * (1 - math.Pow(10, -x))
		pts = append(pts, [2]float64{x, float64(h.ValueAtQuantile(p)) / 1000})
	}
	pts = append(pts, [2]float64{top, float64(h.Max()) / 1000})
	return pts
}

func decode(s string) *hdr.Histogram {
	if s == "" {
		return nil
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil
	}
	return h
}

func msLabel(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%g ms", v)
	}
	return number(v) + " ms"
}

// writeRuns leads with the runs' summary table (the terminal's figures,
// each run's headline named), then draws their charts.
func writeRuns(b *strings.Builder, heading string, runs []named) {
	fmt.Fprintf(b, "<h2>%s</h2>", html.EscapeString(heading))
	writeRunsTable(b, runs)
	for _, g := range byRequest(runs) {
		writePercentiles(b, g)
	}
	writeEventTables(b, runs)
	// Per second: throughput, p50/p99, errors; the events marked on each.
	all := requestGroup{runs: runs}
	for i := range runs {
		all.colors = append(all.colors, color(i))
	}
	marks := eventMarkers(runs)
	perSecond := func(grp requestGroup, title, yLabel string, logY bool, f func(result.Interval) (float64, bool), second func(result.Interval) (float64, bool)) {
		var ls []line
		maxX, lo, hi := 1.0, math.Inf(1), 0.0
		for i, r := range grp.runs {
			for k, g := range []func(result.Interval) (float64, bool){f, second} {
				if g == nil {
					continue
				}
				l := line{name: r.name, color: grp.colors[i], dash: k == 1}
				if second != nil {
					l.name += map[int]string{0: " p99", 1: " p50"}[k]
				}
				for _, iv := range r.run.Series {
					v, ok := g(iv)
					if !ok {
						v = math.NaN()
					} else {
						lo, hi = math.Min(lo, v), math.Max(hi, v)
					}
					if iv.SpanS > 0 {
						if l.hollow == nil {
							l.hollow = map[int]string{}
						}
						l.hollow[len(l.pts)] = fmt.Sprintf("a partial second: the run ended %.2f s into it", iv.SpanS)
					}
					l.pts = append(l.pts, [2]float64{float64(iv.Second) + 0.5, v})
					maxX = math.Max(maxX, float64(iv.Second+1))
				}
				ls = append(ls, l)
			}
		}
		if hi <= 0 && !logY {
			hi = 1
		}
		if math.IsInf(lo, 1) {
			lo = 0
		}
		if !logY {
			lo = 0
		}
		b.WriteString(svgChart(title, "second of the run", yLabel, niceAxis(0, maxX, false, number), niceAxis(lo, math.Max(hi, lo), logY, number), ls, marks...))
	}
	perSecond(all, "Throughput per second", "commands/s", false, func(iv result.Interval) (float64, bool) { return iv.OpsPerSec, true }, nil)
	// Open-loop runs show what users waited: latency from the intended start.
	pick := func(corrected, service *float64) (float64, bool) {
		if corrected != nil {
			return *corrected / 1000, true
		}
		if service == nil {
			return 0, false
		}
		return *service / 1000, true
	}
	for _, g := range byRequest(runs) {
		title := "Latency per second: p99 (solid) and p50 (dashed)"
		if g.commands > 1 {
			title += fmt.Sprintf(", per request of %d pipelined commands", g.commands)
		}
		perSecond(g, title, latencyAxis(g.runs), true,
			func(iv result.Interval) (float64, bool) { return pick(iv.CorrectedP99US, iv.P99US) },
			func(iv result.Interval) (float64, bool) { return pick(iv.CorrectedP50US, iv.P50US) })
	}
	perSecond(all, "Errors per second (failed commands and connect attempts)", "errors", false, func(iv result.Interval) (float64, bool) {
		return float64(iv.Errors + iv.ConnectFailures), true
	}, nil)
	// The server's own view, where sampled.
	var sl []line
	hi := 0.0
	for i, r := range runs {
		if r.run.Server == nil {
			continue
		}
		l := line{name: r.name + " — server ops/s (INFO)", color: color(i)}
		for _, s := range r.run.Server.Samples {
			v := math.NaN()
			if s.OpsPerSec != nil {
				v = *s.OpsPerSec
				hi = math.Max(hi, v)
			}
			l.pts = append(l.pts, [2]float64{float64(s.Second) + 0.5, v})
		}
		sl = append(sl, l)
	}
	if len(sl) > 0 && hi > 0 {
		maxX := 1.0
		for _, l := range sl {
			maxX = math.Max(maxX, float64(len(l.pts)))
		}
		b.WriteString(svgChart("The server's own count per second", "second of the run", "commands/s (all clients)", niceAxis(0, maxX, false, number), niceAxis(0, hi, false, number), sl, marks...))
	}
}

// eventMarkers are the runs' events as chart markers, in each run's color.
func eventMarkers(runs []named) []marker {
	var out []marker
	for i, r := range runs {
		if r.run.Events == nil {
			continue
		}
		for _, e := range r.run.Events.Events {
			if e.IssuedS == nil {
				continue
			}
			m := marker{from: *e.IssuedS, to: math.NaN(), label: e.Text, color: color(i)}
			if e.Cycle > 0 {
				m.label = fmt.Sprintf("%s #%d", e.Text, e.Cycle)
			}
			if len(runs) > 1 {
				m.label = r.name + ": " + m.label
			}
			if e.CompletedS != nil {
				m.to = *e.CompletedS
			}
			out = append(out, m)
		}
	}
	return out
}

// writeEventTables draws each run's events table and write ledger, as
// the terminal prints them.
func writeEventTables(b *strings.Builder, runs []named) {
	for _, r := range runs {
		var ts []report.Table
		if r.run.Events != nil {
			ts = append(ts, report.EventsTable(r.run.Events))
		}
		if r.run.Ledger != nil {
			ts = append(ts, report.LedgerTable(r.run.Ledger))
		}
		for _, t := range ts {
			if len(runs) > 1 {
				t.Title = r.name + ": " + t.Title
			}
			writeTable(b, t)
		}
	}
}

// requestGroup is runs whose latency is per request of the same number
// of commands (1: one command per round trip; N: a pipeline of N).
type requestGroup struct {
	commands int
	runs     []named
	colors   []string
}

// byRequest splits runs by how many commands a request carries, so that a
// pipelined run's per-request latency never shares an axis with per-command
// runs unmarked.
func byRequest(runs []named) []requestGroup {
	var out []requestGroup
	for i, r := range runs {
		n := 1
		if t := r.run.Config.Template; t != nil {
			n = max(1, t.Pipeline)
		}
		k := slices.IndexFunc(out, func(g requestGroup) bool { return g.commands == n })
		if k < 0 {
			out, k = append(out, requestGroup{commands: n}), len(out)
		}
		out[k].runs, out[k].colors = append(out[k].runs, r), append(out[k].colors, color(i))
	}
	return out
}

// writePercentiles draws one group's latency by percentile, on the
// "nines" axis.
func writePercentiles(b *strings.Builder, g requestGroup) {
	var lines []line
	ymin, ymax := math.Inf(1), 0.0
	for i, r := range g.runs {
		if h := decode(r.run.HistogramCorrected); h != nil {
			lines = append(lines, line{name: r.name + " — " + result.FromIntendedStart.Label(), color: g.colors[i], pts: percentileLine(h)})
			lines = append(lines, line{name: r.name + " — service time, " + result.FromSend.Label(), color: g.colors[i], dash: true,
				pts: percentileLine(decode(r.run.Histogram))})
		} else {
			lines = append(lines, line{name: r.name + " — " + result.FromSend.Label(), color: g.colors[i], pts: percentileLine(decode(r.run.Histogram))})
		}
	}
	for _, l := range lines {
		for _, p := range l.pts {
			if p[1] > 0 {
				ymin, ymax = math.Min(ymin, p[1]), math.Max(ymax, p[1])
			}
		}
	}
	if ymax > 0 {
		x := axis{min: 0, max: 5, ticks: []float64{0, 1, 2, 3, 4, 5}, labels: []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"}}
		title := "Latency by percentile (per request: one command per round trip)"
		if g.commands > 1 {
			title = fmt.Sprintf("Latency by percentile (per request: a pipeline of %d commands, not per command)", g.commands)
		}
		b.WriteString(svgChart(title, "percentile", "latency", x, niceAxis(ymin, ymax, true, msLabel), lines))
	}
}

// writeRunsTable is the runs' summary table: target, set-up and figures.
func writeRunsTable(b *strings.Builder, runs []named) {
	b.WriteString(`<table><tr><th>run</th><th>target</th><th>command</th><th>mode</th><th>QPS</th><th>latency</th><th>p50 ms</th><th>p99 ms</th><th>p99.9 ms</th><th>max ms</th><th>service time p99 ms</th><th>errors</th><th>client µs/cmd</th><th>warnings</th></tr>`)
	for i, r := range runs {
		t := r.run.Totals
		l, m := t.Headline()
		cpu := fmt.Sprintf("%.2f", r.run.Client.CPUPerOpUS)
		if r.run.Client.InProcessServer {
			cpu += " (client and embedded server: one process)"
		}
		service := "— (the same)"
		if m != result.FromSend {
			service = fmt.Sprintf("%.3f", t.Latency.P99/1000)
		}
		target := "(not recorded)"
		if tg := r.run.Config.Target; tg != nil {
			target = report.TargetLine(tg)
		}
		mode := r.run.Config.Mode
		if r.run.Config.Connections > 0 {
			mode = fmt.Sprintf("%s, %d connections, %s, %.0f s", mode, r.run.Config.Connections, report.Loop(r.run), r.run.DurationMS/1000)
		}
		fmt.Fprintf(b, `<tr><td><span class="sw" style="background:%s"></span>%s</td><td>%s</td><td><code>%s</code></td><td>%s</td><td>%.0f</td><td>%s</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%.3f</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td></tr>`,
			color(i), html.EscapeString(r.name), html.EscapeString(target), html.EscapeString(r.run.Command), html.EscapeString(mode), t.OpsPerSec,
			m.Label()+perRequest(r.run), l.P50/1000, l.P99/1000, l.P999/1000, l.Max/1000, service, t.Errors, cpu,
			html.EscapeString(warningsCell(r.run.Warnings)))
	}
	b.WriteString("</table>")
	for _, r := range runs {
		if len(r.run.Warnings) > 0 {
			fmt.Fprintf(b, `<p class="meta"><b>%s</b>: its warnings</p>`, html.EscapeString(r.name))
			writeNotes(b, r.run.Warnings)
		}
	}
}

// warningsCell is how many warnings a run has (listed under the table):
// their text in a cell would stretch every row.
func warningsCell(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return "1 warning, under the table"
	}
	return fmt.Sprintf("%d warnings, under the table", len(ws))
}

// perRequest names a pipelined run's latency as per request.
func perRequest(r *result.Run) string {
	if t := r.Config.Template; t != nil && t.Pipeline > 1 {
		return fmt.Sprintf(", per request of %d commands", t.Pipeline)
	}
	return ""
}

// headlineP99 is a run's headline p99 in milliseconds.
func headlineP99(r *result.Run) float64 {
	l, _ := r.Totals.Headline()
	return l.P99 / 1000
}

// ratioBar is the measured-to-published ratio as a bar (1.0 marked),
// green above 1 and red below. Against a target that is not Tair the
// published figure is Tair's and the bar is grey, "for scale only": no
// verdict colours.
func ratioBar(ratio float64, forScale bool) string {
	if ratio <= 0 || math.IsNaN(ratio) {
		return "—"
	}
	w := math.Min(ratio, 3) / 3 * 150
	if forScale {
		return fmt.Sprintf(`<span class="ratio"><svg class="barsvg" width="150" height="12"><rect class="bar" style="fill:#999" width="%.1f" height="12"/><line x1="50" y1="0" x2="50" y2="12" class="one"/></svg> %.2f (for scale only)</span>`, w, ratio)
	}
	cls := "bar"
	if ratio < 1 {
		cls = "bar low"
	}
	return fmt.Sprintf(`<span class="ratio"><svg class="barsvg" width="150" height="12"><rect class="%s" width="%.1f" height="12"/><line x1="50" y1="0" x2="50" y2="12" class="one"/></svg> %.2f</span>`, cls, w, ratio)
}

// roaringRatio is a case's ratio bar, or "data differs" where its data is
// known not to be the whitepaper's.
func roaringRatio(c result.RoaringCaseResult, forScale bool) string {
	if c.DataDiffers != "" {
		return "data differs: " + html.EscapeString(c.DataDiffers)
	}
	return ratioBar(c.Ratio, forScale)
}

// notTairNote is the line a suite's section gets when its target is not
// Tair.
const notTairNote = "<br><b>The target is tairbench's embedded server, not Tair:</b> the published figures are Tair's, so each bar is for scale only."

func writeRoaring(b *strings.Builder, name string, s *result.RoaringSuite) {
	forScale := s.Config.Target.NotTair()
	note := ""
	if forScale {
		note = notTairNote
	}
	fmt.Fprintf(b, "<h2>TairRoaring suite — %s</h2><p class=\"meta\">target %s; reference: the whitepaper's figures (16 GB standard instance). The bar shows measured ÷ published; the mark is 1.0.%s</p>",
		html.EscapeString(name), html.EscapeString(report.TargetLine(&s.Config.Target)), note)
	b.WriteString(`<table><tr><th>case</th><th>command</th><th>measured</th><th>published</th><th>measured ÷ published</th><th>p99 ms</th><th>notes</th></tr>`)
	for _, c := range s.Cases {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%.3f</td><td>%s</td></tr>", html.EscapeString(c.Case.ID),
			html.EscapeString(c.Case.Command), c.Rate, c.Case.Ref.Rate, roaringRatio(c, forScale), c.P99MS, html.EscapeString(report.RoaringNote(c)))
	}
	b.WriteString("</table>")
}

func writeWhitepaper(b *strings.Builder, name string, s *result.WhitepaperSuite) {
	forScale := s.Target.NotTair()
	target := ""
	if s.Target != nil {
		target = "<br>target " + html.EscapeString(report.TargetLine(s.Target))
	}
	if forScale {
		target += notTairNote
	}
	fmt.Fprintf(b, "<h2>%s — %s</h2><p class=\"meta\">%s<br>as run: <code>%s</code><br>%s%s</p>", html.EscapeString(s.Suite), html.EscapeString(name),
		html.EscapeString(s.Source), html.EscapeString(s.CommandLine), html.EscapeString(s.Scale), target)
	b.WriteString(`<table><tr><th>table</th><th>case</th><th>QPS measured</th><th>QPS published</th><th>measured ÷ published</th><th>capacity search</th></tr>`)
	for _, c := range s.Cases {
		search := ""
		if c.Capacity != nil {
			search = report.CapacityAnswer(c.Capacity)
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%s</td></tr>", html.EscapeString(c.Section), html.EscapeString(c.Name),
			c.Measured.QPS, c.Reference.QPS, ratioBar(c.Ratio, forScale), html.EscapeString(search))
	}
	b.WriteString("</table>")
}

func writeCapacity(b *strings.Builder, name string, c *result.CapacitySearch) {
	fmt.Fprintf(b, "<h2>Capacity search — %s</h2><p class=\"meta\">target %s: %s</p>",
		html.EscapeString(name), html.EscapeString(c.SLO), html.EscapeString(report.CapacityAnswer(c)))
	for _, w := range c.Warnings {
		fmt.Fprintf(b, "<p class=\"meta\" style=\"color:#a40000;font-weight:600\">!! %s</p>", html.EscapeString(w))
	}
	// The hockey stick: p99 from the intended start against the offered rate.
	var all [][2]float64
	lo, hi, maxX := math.Inf(1), 0.0, 0.0
	for _, st := range c.Steps {
		if st.Run == nil {
			continue
		}
		l, _ := st.Run.Totals.Headline()
		p := [2]float64{st.Rate, l.P99 / 1000}
		all = append(all, p)
		lo, hi, maxX = math.Min(lo, p[1]), math.Max(hi, p[1]), math.Max(maxX, st.Rate)
	}
	// The curve through the steps, by rate.
	sortByX(all)
	curve := line{name: "p99 from the intended start, by offered rate", color: "#1f77b4", pts: all}
	if len(all) > 0 {
		b.WriteString(svgChart("Latency against offered rate", "requests/s offered", "p99 ms", niceAxis(0, maxX, false, number),
			niceAxis(lo, hi, true, msLabel), []line{curve}))
	}
	b.WriteString(`<table><tr><th>step</th><th>rate</th><th>held</th><th>p99 ms</th><th>why</th></tr>`)
	row := func(label string, st result.CapacityStep) {
		p99 := 0.0
		if st.Run != nil {
			l, _ := st.Run.Totals.Headline()
			p99 = l.P99 / 1000
		}
		fmt.Fprintf(b, "<tr><td>%s</td><td>%.0f</td><td>%v</td><td>%.3f</td><td>%s</td></tr>", label, st.Rate, st.Held, p99, html.EscapeString(strings.Join(st.Why, "; ")))
	}
	for i, st := range c.Steps {
		row(fmt.Sprint(i+1), st)
	}
	for _, st := range report.Confirmations(c) {
		row("confirm", st)
	}
	b.WriteString("</table>")
}

// latencyAxis labels the per-second latency axis after the runs' modes:
// open-loop runs are drawn from the intended start, closed-loop runs from
// the send.
func latencyAxis(runs []named) string {
	open, closed := 0, 0
	for _, r := range runs {
		if r.run.Totals.Measure() == result.FromIntendedStart {
			open++
		} else {
			closed++
		}
	}
	switch {
	case closed == 0:
		return "ms (" + result.FromIntendedStart.Label() + ")"
	case open == 0:
		return "ms (" + result.FromSend.Label() + ")"
	}
	return "ms (open-loop runs: " + result.FromIntendedStart.Label() + "; closed-loop: " + result.FromSend.Label() + ")"
}

func sortByX(pts [][2]float64) {
	sort.Slice(pts, func(i, j int) bool { return pts[i][0] < pts[j][0] })
}

func writeSearch(b *strings.Builder, name string, s *result.SearchComparison) {
	fmt.Fprintf(b, "<h2>Search comparison — %s</h2><p class=\"meta\">published: the whitepaper's figures (5,000,000 abstracts, 30 connections). The bar shows measured ÷ published; the mark is 1.0.</p>", html.EscapeString(name))
	if len(s.Config.Engines) > 0 { // where each engine was reached, and who its server said it is
		names := make([]string, 0, len(s.Config.Engines))
		for n := range s.Config.Engines {
			names = append(names, n)
		}
		sort.Strings(names)
		b.WriteString(`<ul class="notes">`)
		for _, n := range names {
			fmt.Fprintf(b, "<li>%s: %s</li>", html.EscapeString(n), html.EscapeString(s.Config.Engines[n]))
		}
		b.WriteString("</ul>")
	}
	b.WriteString(`<table><tr><th>engine</th><th>phase</th><th>QPS</th><th>published QPS</th><th>measured ÷ published</th><th>p99 ms</th><th>errors</th></tr>`)
	for _, e := range s.Engines {
		for _, ph := range []struct {
			name, key string
			run       *result.Run
		}{{"write", "write", e.Write}, {"term query", "term", e.Term}, {"aggregation, cache on", "agg cache on", e.AggCache},
			{"aggregation, cache off", "agg cache off", e.AggNoCache}} {
			if ph.run == nil {
				continue
			}
			pub, ratio := s.PublishedQPS[e.Engine+" "+ph.key], 0.0
			if pub > 0 {
				ratio = ph.run.Totals.OpsPerSec / pub
			}
			fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td>%.0f</td><td>%.0f</td><td>%s</td><td>%.3f</td><td>%d</td></tr>", html.EscapeString(e.Engine), ph.name,
				ph.run.Totals.OpsPerSec, pub, ratioBar(ratio, ph.run.Config.Target.NotTair()), headlineP99(ph.run), ph.run.Totals.Errors)
		}
	}
	b.WriteString("</table>")
	if s.Relevance != nil { // quality beside the speed, as the terminal prints it
		writeTable(b, report.RelevanceTable(s.Relevance))
	}
}

const css = `body{font:14px/1.45 ` + FontStack + `;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
.meta{color:#555}table{border-collapse:collapse;margin:12px 0;font-size:13px}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}td:first-child,th:first-child,td:nth-child(2){text-align:left}
code{font-size:12px}.sw{display:inline-block;width:10px;height:10px;margin-right:6px}
svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}svg .tick,svg .legend{font-size:11px;fill:#444}
svg .label{font-size:12px;fill:#333}svg .title{font-size:14px;font-weight:600;fill:#222}
.barsvg .bar{fill:#2ca02c}.barsvg .low{fill:#d62728}.barsvg .one{stroke:#222}figure{margin:16px 0}`

// FontStack is the report's font: the system's, then fonts with Chinese
// glyphs (Noto/Source Han, PingFang, YaHei, WenQuanYi), so that CJK text
// in a track or a corpus draws as text, not boxes.
const FontStack = `system-ui,"Noto Sans CJK SC","Source Han Sans SC","PingFang SC","Microsoft YaHei","WenQuanYi Micro Hei","WenQuanYi Zen Hei",sans-serif`

// checkJS marks each chart that drew data (a line with a visible extent,
// or a marker), and says at the page's top and end which did not: an
// empty chart is named, not counted. It also draws "数据库" in the page's
// font and a private-use character (no font has it: a missing glyph's
// box) and says whether they differ, that is whether Chinese text draws
// as text (data-cjk on the body).
const checkJS = `(function(){var charts=document.querySelectorAll('svg.chart'),ok=0,empty=[];
charts.forEach(function(c){var drawn=false;c.querySelectorAll('.data').forEach(function(p){
var bb=p.getBBox();var pts=p.getAttribute('points');if((pts===null||pts.trim().length>0)&&(bb.width>0||bb.height>0))drawn=true;});
c.setAttribute('data-rendered',drawn?'yes':'no');if(drawn)ok++;else empty.push(c.getAttribute('aria-label'));});
var msg='charts rendered: '+ok+' of '+charts.length+(empty.length?'; EMPTY: '+empty.join('; '):'');
document.getElementById('check').textContent=msg;
if(empty.length){var p=document.createElement('p');p.className='meta';p.style.color='#a40000';p.textContent='!! '+msg;document.body.insertBefore(p,document.body.children[1]);}
function ink(t){var cv=document.createElement('canvas');cv.width=60;cv.height=24;var x=cv.getContext('2d');
x.font='16px '+getComputedStyle(document.body).fontFamily;x.fillText(t,2,18);return cv.toDataURL();}
document.body.setAttribute('data-cjk',ink('\u6570')!==ink('\ue000')&&ink('\u636e')!==ink('\ue000')?'yes':'no');})();`
