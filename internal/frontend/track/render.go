package track

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
	for _, t := range d.Tasks {
		renderTask(w, t)
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
		fmt.Fprintln(tw, "  parity\ttotals agree\ttop-10 overlap\tcause")
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
	fmt.Fprintln(tw, "  engine\toperation\treq/s\tp50 ms\tp99 ms\terrors\tzero hits\tmean hits\t")
	for _, e := range t.Engines {
		r := e.Run
		if r == nil {
			continue
		}
		unit := "req/s"
		if t.Kind == "ingest" {
			unit = "docs/s"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%.0f %s\t%s\t%s\t%d\t\t\t\n", e.Engine, "all", r.Totals.OpsPerSec, unit,
			ms(r.Totals.Latency.P50), ms(r.Totals.Latency.P99), r.Totals.Errors)
		if len(e.Templates) > 1 || (len(e.Templates) == 1 && len(r.Operations) > 0) {
			for i, ts := range e.Templates {
				rate, errs := 0.0, int64(0)
				if i < len(r.Operations) {
					rate, errs = r.Operations[i].OpsPerSec, r.Operations[i].Errors
				}
				fmt.Fprintf(tw, "  \t%s\t%.0f\t%s\t%s\t%d\t%.0f %%\t%.1f\t\n", ts.Name, rate, ms(ts.Latency.P50), ms(ts.Latency.P99),
					errs, 100*ts.ZeroHitShare, ts.MeanHits)
			}
		} else if len(e.Templates) == 1 {
			ts := e.Templates[0]
			fmt.Fprintf(tw, "  \t%s\t\t\t\t\t%.0f %%\t%.1f\t\n", ts.Name, 100*ts.ZeroHitShare, ts.MeanHits)
		}
		if len(r.Operations) > len(e.Templates) {
			op := r.Operations[len(e.Templates)]
			fmt.Fprintf(tw, "  \t%s\t%.0f docs/s\t%s\t%s\t%d\t\t\t\n", op.Name, op.OpsPerSec, ms(op.Latency.P50), ms(op.Latency.P99), op.Errors)
		}
		if e.Docs > 0 {
			fmt.Fprintf(tw, "  \tsearchable\t%d docs\t\t\t\t\t\t\n", e.Docs)
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
