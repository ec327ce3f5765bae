package htmlreport

import (
	"fmt"
	"html"
	"sort"
	"strings"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// trackRuns names every task's run on every engine of a track result, for
// the run charts.
func trackRuns(name string, d *result.TrackRun) []named {
	var out []named
	for _, t := range d.Tasks {
		for _, e := range t.Engines {
			if e.Run != nil {
				out = append(out, named{fmt.Sprintf("%s: %s on %s", name, t.Name, e.Engine), e.Run})
			}
		}
	}
	return out
}

// writeTrack prints a track result per task: what ran where and what
// differs, the parity of each template, and each engine's per-template
// throughput, latency, hits and zero-hit share; then each task's runs'
// charts.
func writeTrack(b *strings.Builder, name string, d *result.TrackRun) {
	fmt.Fprintf(b, "<h2>Search track %s — %s</h2><p class=\"meta\">%s. Corpus: %s (%d documents).</p><ul class=\"notes\">",
		html.EscapeString(d.Track), html.EscapeString(name), html.EscapeString(d.Description), html.EscapeString(d.Corpus), d.Docs)
	engines := make([]string, 0, len(d.Engines))
	for k := range d.Engines {
		engines = append(engines, k)
	}
	sort.Strings(engines)
	for _, e := range engines {
		fmt.Fprintf(b, "<li>%s: %s</li>", html.EscapeString(e), html.EscapeString(d.Engines[e]))
	}
	for _, s := range d.Differences {
		fmt.Fprintf(b, "<li>differs: %s</li>", html.EscapeString(s))
	}
	for _, s := range d.Warnings {
		fmt.Fprintf(b, "<li>warning: %s</li>", html.EscapeString(s))
	}
	b.WriteString("</ul>")
	if len(d.TokenAgreement) > 0 {
		writeTable(b, report.TokenAgreementTable(d.TokenAgreement))
	}
	if d.Relevance != nil {
		writeTable(b, report.RelevanceTable(d.Relevance))
	}
	for _, t := range d.Tasks {
		fmt.Fprintf(b, "<h3>task %s (%s, %d clients)</h3>", html.EscapeString(t.Name), html.EscapeString(t.Kind), t.Clients)
		if len(t.Parity) > 0 {
			b.WriteString("<table><tr><th>template</th><th>totals agree</th><th>top-10 overlap</th><th>causes, each scored by the share of samples it explains</th></tr>")
			for _, p := range t.Parity {
				cause := p.Cause
				if cause == "" {
					cause = "agree"
				}
				fmt.Fprintf(b, "<tr><td title=\"%s\">%s</td><td>%.0f %%</td><td>%.2f</td><td>%s</td></tr>", html.EscapeString(p.Example),
					html.EscapeString(p.Template), 100*p.TotalAgreement, p.TopOverlap, html.EscapeString(cause))
			}
			b.WriteString("</table>")
		}
		b.WriteString("<table><tr><th>engine</th><th>operation</th><th>ops/s</th><th>latency</th><th>p50 ms</th><th>p99 ms</th><th>errors</th><th>zero hits</th><th>mean hits</th></tr>")
		for _, e := range t.Engines {
			if e.Run == nil {
				continue
			}
			r := e.Run
			l, m := r.Totals.Headline()
			fmt.Fprintf(b, "<tr><td>%s</td><td>all</td><td>%.0f</td><td>%s</td><td>%.2f</td><td>%.2f</td><td>%d</td><td></td><td></td></tr>",
				html.EscapeString(e.Engine), r.Totals.OpsPerSec, m.Label(), l.P50/1000, l.P99/1000, r.Totals.Errors)
			for i, ts := range e.Templates {
				rate := 0.0
				if i < len(r.Operations) {
					rate = r.Operations[i].OpsPerSec
				}
				p50, p99 := 0.0, 0.0
				tl := ts.Latency
				if m == result.FromIntendedStart {
					tl = ts.CorrectedLatency
				}
				if tl != nil {
					p50, p99 = tl.P50/1000, tl.P99/1000
				}
				fmt.Fprintf(b, "<tr><td></td><td>%s</td><td>%.0f</td><td>%s</td><td>%.2f</td><td>%.2f</td><td></td><td>%.0f %%</td><td>%.1f</td></tr>",
					html.EscapeString(ts.Name), rate, m.Label(), p50, p99, 100*ts.ZeroHitShare, ts.MeanHits)
			}
			writeWriterRows(b, e)
		}
		b.WriteString("</table>")
	}
	if runs := trackRuns(name, d); len(runs) > 0 {
		writeRuns(b, "Search track "+d.Track+" — each task's runs", runs)
	}
}

// writeWriterRows are, as the terminal prints them, a task's writers (a
// task that writes while it queries: the writers' own rate when the corpus
// ran out) and the documents searchable at its end.
func writeWriterRows(b *strings.Builder, e result.TrackEngine) {
	r := e.Run
	if len(r.Operations) > len(e.Templates) && len(r.Operations) > 0 {
		op := r.Operations[len(e.Templates)]
		rate := fmt.Sprintf("%.0f docs/s", op.OpsPerSec)
		if in := e.Ingest; in != nil && in.CorpusLimited {
			rate = fmt.Sprintf("%.0f docs/s while writing (%.1f s; the corpus ran out)", in.DocsPerSec, in.WritingS)
		}
		fmt.Fprintf(b, "<tr><td></td><td>%s (writers)</td><td>%s</td><td>%s</td><td>%.2f</td><td>%.2f</td><td>%d</td><td></td><td></td></tr>",
			html.EscapeString(op.Name), html.EscapeString(rate), result.FromSend.Label(), op.Latency.P50/1000, op.Latency.P99/1000, op.Errors)
	}
	if e.Docs > 0 {
		fmt.Fprintf(b, "<tr><td></td><td>searchable</td><td>%d docs</td><td></td><td></td><td></td><td></td><td></td><td></td></tr>", e.Docs)
	}
}
