package track

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/threshold"
	"github.com/tairbench/tairbench/pkg/result"
)

// Render prints a track run: what ran where, what differs between the
// engines, then each task: parity per template, the engines' figures and
// per-template latency, hits and zero-hit share.
func Render(w io.Writer, d *result.TrackRun) {
	fmt.Fprintf(w, "track %s: %s\n", d.Track, d.Description)
	fmt.Fprintf(w, "corpus: %s (%d documents read)\n", d.Corpus, d.Docs)
	for _, name := range sortedKeys(d.Engines) {
		fmt.Fprintf(w, "%-14s %s\n", name+":", d.Engines[name])
	}
	if len(d.Differences) > 0 {
		fmt.Fprintln(w, "set-up differences between the engines:")
		for _, s := range d.Differences {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	for _, a := range d.Analyzers {
		how := "same tokens"
		if !a.Exact {
			how = a.Why
		}
		fmt.Fprintf(w, "analyzer %s: %s → %s (%s)\n", a.Field, a.TairSearch, a.Elasticsearch, how)
	}
	if len(d.TokenAgreement) > 0 {
		report.WriteTable(w, report.TokenAgreementTable(d.TokenAgreement))
	}
	for _, t := range d.Tasks {
		renderTask(w, t)
	}
	if d.Relevance != nil {
		fmt.Fprintln(w)
		report.WriteTable(w, report.RelevanceTable(d.Relevance))
		threshold.Write(w, d.Thresholds)
	}
	for _, s := range d.Warnings {
		fmt.Fprintf(w, "warning: %s\n", s)
	}
}

func renderTask(w io.Writer, t result.TrackTask) {
	fmt.Fprintf(w, "\ntask %s (%s, %d clients", t.Name, t.Kind, t.Clients)
	if t.Rate > 0 {
		fmt.Fprintf(w, ", target %.0f requests/s", t.Rate)
	}
	fmt.Fprintln(w, ")")
	if len(t.Parity) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  parity\ttotals agree\ttop-10 overlap\tcauses, each scored by the share of samples it explains")
		for _, p := range t.Parity {
			cause := p.Cause
			if cause == "" {
				cause = "agree"
			}
			fmt.Fprintf(tw, "  %s\t%d/%d\t%.2f\t%s\n", p.Template, int(p.TotalAgreement*float64(p.Samples)+0.5), p.Samples, p.TopOverlap, cause)
		}
		tw.Flush()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	open := t.Rate > 0
	head := "  engine\toperation\treq/s\tp50 ms\tp99 ms\terrors\tzero hits\tmean hits\t"
	if open { // the headline is from the intended start; the service time is named so
		head = "  engine\toperation\treq/s\tservice p50 ms\tservice p99 ms\terrors\tzero hits\tmean hits\t" +
			"p99 ms, " + result.FromIntendedStart.Label() + "\t"
	}
	fmt.Fprintln(tw, head)
	corrected := func(l *result.Latency) string {
		if !open {
			return ""
		}
		if l == nil {
			return "-\t"
		}
		return ms(l.P99) + "\t"
	}
	for _, e := range t.Engines {
		r := e.Run
		if r == nil {
			continue
		}
		unit := "req/s"
		if t.Kind == "ingest" {
			unit = "docs/s"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%.0f %s\t%s\t%s\t%d\t\t\t%s\n", e.Engine, "all", r.Totals.OpsPerSec, unit,
			ms(r.Totals.Latency.P50), ms(r.Totals.Latency.P99), r.Totals.Errors, corrected(r.Totals.CorrectedLatency))
		perOp := len(r.Operations) > 0
		for i, ts := range e.Templates {
			if !perOp {
				fmt.Fprintf(tw, "  \t%s\t\t\t\t\t%.0f %%\t%.1f\t%s\n", ts.Name, 100*ts.ZeroHitShare, ts.MeanHits, "")
				continue
			}
			op := r.Operations[i]
			fmt.Fprintf(tw, "  \t%s\t%.0f\t%s\t%s\t%d\t%.0f %%\t%.1f\t%s\n", ts.Name, op.OpsPerSec, ms(ts.Latency.P50), ms(ts.Latency.P99),
				op.Errors, 100*ts.ZeroHitShare, ts.MeanHits, corrected(ts.CorrectedLatency))
		}
		if perOp && len(r.Operations) > len(e.Templates) {
			op := r.Operations[len(e.Templates)]
			rate, unit := op.OpsPerSec, "docs/s"
			if in := e.Ingest; in != nil && in.CorpusLimited { // the engine's own rate, not the task's
				rate, unit = in.DocsPerSec, fmt.Sprintf("docs/s while writing (%.1f s; the corpus ran out)", in.WritingS)
			}
			fmt.Fprintf(tw, "  \t%s\t%.0f %s\t%s\t%s\t%d\t\t\t%s\n", op.Name, rate, unit, ms(op.Latency.P50), ms(op.Latency.P99), op.Errors,
				corrected(op.CorrectedLatency))
		}
		if e.Docs > 0 {
			fmt.Fprintf(tw, "  \tsearchable\t%d docs\t\t\t\t\t\t%s\n", e.Docs, strings.Repeat("\t", boolInt(open)))
		}
	}
	tw.Flush()
	for _, e := range t.Engines {
		if e.Run == nil {
			continue
		}
		for _, er := range e.Run.Errors {
			fmt.Fprintf(w, "  error on %s (%s, %d): %s\n", e.Engine, er.Kind, er.Count, strings.ReplaceAll(er.Example, "\n", " "))
		}
	}
}

func ms(us float64) string {
	if us == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", us/1000)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
