package bitmap

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// writeTargets names the server behind every structure.
func writeTargets(w io.Writer, doc *result.BitmapComparison) {
	fmt.Fprintln(w, "bitmap comparison: the same IDs as each structure, the same questions asked of each")
	for _, s := range doc.Config.Structures {
		t := doc.Config.Targets[s]
		fmt.Fprintf(w, "  %-13s on %s\n", s, report.TargetLine(&t))
	}
}

// writePoint prints one point's memory, cross-check and operation tables.
func writePoint(w io.Writer, i int, p *result.BitmapPoint) {
	var ids []string
	for _, k := range p.Keys {
		ids = append(ids, fmt.Sprint(k.Cardinality))
	}
	fmt.Fprintf(w, "\npoint %d: %d keys of %s IDs, IDs below %d (%s)\n", i, len(p.Keys), strings.Join(ids, ", "), p.Universe, p.Keys[0].Source)
	for _, k := range p.Keys {
		if k.Duplicates > 0 {
			fmt.Fprintf(w, "  %s: %d duplicate IDs counted once\n", k.Source, k.Duplicates)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(label string, f func(s result.BitmapStructure) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, s := range p.Structures {
			fmt.Fprintf(tw, "%s\t", f(s))
		}
		fmt.Fprintln(tw)
	}
	row("", func(s result.BitmapStructure) string { return s.Name })
	ids64 := float64(sumCard(p))
	row("MEMORY USAGE", func(s result.BitmapStructure) string { return bytesText(s.MemoryBytes) })
	row("bytes per ID", func(s result.BitmapStructure) string { return fmt.Sprintf("%.2f", float64(s.MemoryBytes)/ids64) })
	row("data bytes", func(s result.BitmapStructure) string { return orDash(s.DataBytes > 0, bytesText(s.DataBytes)) })
	row("used_memory Δ", func(s result.BitmapStructure) string { return bytesText(uint64(max(s.UsedMemoryDelta, 0))) })
	row("encoding", func(s result.BitmapStructure) string {
		return orDash(len(s.Encodings) > 0, strings.Join(uniq(s.Encodings), "+"))
	})
	row("load IDs/s", func(s result.BitmapStructure) string { return fmt.Sprintf("%.0f", ids64/max(s.LoadSeconds, 1e-9)) })
	row("full read IDs/s", func(s result.BitmapStructure) string {
		return fmt.Sprintf("%.0f", float64(s.IterateMembers)/max(s.IterateSeconds, 1e-9))
	})
	_ = tw.Flush()
	writeCrosscheck(w, p)
	writeOps(w, p)
}

func writeCrosscheck(w io.Writer, p *result.BitmapPoint) {
	probes, agreed := 0, 0
	for _, c := range p.Crosscheck {
		probes += c.Probes
		agreed += c.Agreed
		if c.Difference != "" {
			fmt.Fprintf(w, "!! answers differ: %s\n", c.Difference)
		}
	}
	if probes > 0 && probes == agreed {
		fmt.Fprintf(w, "cross-check: %d operations, %d questions, every structure gave the answer the loaded IDs give\n", len(p.Crosscheck), probes)
	}
}

func writeOps(w io.Writer, p *result.BitmapPoint) {
	if len(p.Operations) == 0 {
		return
	}
	fmt.Fprintln(w, "operations, closed loop: mean ms / p99 ms / ops/s (open loop, when run: latency from the intended start)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "operation\t")
	for _, s := range p.Structures {
		fmt.Fprintf(tw, "%s\t", s.Name)
	}
	fmt.Fprintln(tw, "fastest\t")
	var notes []string
	for _, op := range p.Operations {
		fmt.Fprintf(tw, "%s\t", op.Name)
		for _, r := range op.Results {
			fmt.Fprintf(tw, "%s\t", cell(r))
			if r.Unsupported != "" {
				notes = append(notes, fmt.Sprintf("%s, %s: %s", op.Name, r.Structure, r.Unsupported))
			}
		}
		fmt.Fprintf(tw, "%s\t\n", fastest(op))
	}
	_ = tw.Flush()
	for _, n := range notes {
		fmt.Fprintf(w, "  — %s\n", n)
	}
}

func cell(r result.BitmapOpResult) string {
	if r.Closed == nil {
		return "—"
	}
	t := r.Closed.Totals
	s := fmt.Sprintf("%.3f / %.3f / %s", t.Latency.Mean/1000, t.Latency.P99/1000, rateText(t.OpsPerSec))
	if r.Open != nil && r.Open.Totals.CorrectedLatency != nil {
		c := r.Open.Totals.CorrectedLatency
		s += fmt.Sprintf(" (open %.3f / %.3f)", c.Mean/1000, c.P99/1000)
	}
	return s
}

func rateText(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f K", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// tieWithin is how close two closed-loop means must be to call neither
// faster: one run each cannot tell them apart on a shared machine.
const tieWithin = 0.15

// fastest is the structure with the lowest closed-loop mean latency, or
// "≈ a, b, …" listing, fastest first, every structure within tieWithin of
// it (each is set against the fastest, not only the runner-up).
func fastest(op result.BitmapOperation) string {
	var idx []int
	mean := func(i int) float64 { return op.Results[i].Closed.Totals.Latency.Mean }
	for i, r := range op.Results {
		if r.Closed != nil && r.Closed.Totals.Ops > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return "—"
	}
	sort.SliceStable(idx, func(a, b int) bool { return mean(idx[a]) < mean(idx[b]) })
	names := []string{op.Results[idx[0]].Structure}
	for _, i := range idx[1:] {
		if mean(i) <= mean(idx[0])*(1+tieWithin) {
			names = append(names, op.Results[i].Structure)
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return "≈ " + strings.Join(names, ", ")
}

// smallest is the structure with the least memory.
func smallest(p result.BitmapPoint) string {
	best := ""
	var bytes uint64
	for _, s := range p.Structures {
		if best == "" || s.MemoryBytes < bytes {
			best, bytes = s.Name, s.MemoryBytes
		}
	}
	return best
}

// writeSweep prints, over two or more points, which structure wins each
// measure at each cardinality and where the winner changes.
func writeSweep(w io.Writer, doc *result.BitmapComparison) {
	if len(doc.Points) > 1 {
		var targets []string
		for _, s := range doc.Config.Structures {
			t := doc.Config.Targets[s]
			targets = append(targets, s+" on "+report.TargetLine(&t))
		}
		fmt.Fprintf(w, "\nsweep summary: %d points, %s\n", len(doc.Points), strings.Join(targets, "; "))
	}
	if len(doc.Points) > 0 {
		var b strings.Builder
		report.WriteWarnings(&b, doc.Warnings)
		_, _ = io.WriteString(w, b.String())
	}
	if len(doc.Points) < 2 {
		return
	}
	rows := sweepRows(doc)
	fmt.Fprintf(w, "\nwhere each structure wins (memory: least MEMORY USAGE; operations: lowest closed-loop mean latency, "+
		"≈ lists every structure within %.0f%% of the fastest)\n", tieWithin*100)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "cardinality\t")
	for _, p := range doc.Points {
		fmt.Fprintf(tw, "%d\t", p.Cardinality)
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t\n", r.measure, strings.Join(r.winners, "\t"))
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "crossovers:")
	any := false
	for _, r := range rows {
		for i := 1; i < len(r.winners); i++ {
			if r.winners[i] != r.winners[i-1] && single(r.winners[i]) && single(r.winners[i-1]) {
				fmt.Fprintf(w, "  %s: %s up to %d, %s from %d\n", r.measure, r.winners[i-1], doc.Points[i-1].Cardinality,
					r.winners[i], doc.Points[i].Cardinality)
				any = true
			}
		}
	}
	if !any {
		fmt.Fprintln(w, "  none: each measure has one winner over the whole sweep")
	}
}

type sweepRow struct {
	measure string
	winners []string
}

// sweepRows are the winners per measure and point.
func sweepRows(doc *result.BitmapComparison) []sweepRow {
	rows := []sweepRow{{measure: "memory"}}
	for _, p := range doc.Points {
		rows[0].winners = append(rows[0].winners, smallest(p))
	}
	for oi, name := range doc.Config.Operations {
		r := sweepRow{measure: name}
		for _, p := range doc.Points {
			w := "—"
			if oi < len(p.Operations) {
				w = fastest(p.Operations[oi])
			}
			r.winners = append(r.winners, w)
		}
		rows = append(rows, r)
	}
	return rows
}

// warnings say what differs in the set-up and what the figures are not.
func (o *Options) warnings(doc *result.BitmapComparison) []string {
	var out []string
	tr, hasR := doc.Config.Targets[bitmaps.TairRoaring]
	for _, s := range doc.Config.Structures {
		t := doc.Config.Targets[s]
		if hasR && s != bitmaps.TairRoaring && t.Addr != tr.Addr {
			out = append(out, fmt.Sprintf("TairRoaring ran on %s and the Redis structures on %s: the latencies compare two servers as well as "+
				"the structures; memory is each server's own MEMORY USAGE", tr.Addr, t.Addr))
			break
		}
	}
	if hasR && tr.NotTair() {
		out = append(out, "TairRoaring's figures come from tairbench's embedded server (Go), not Tair: its MEMORY USAGE is that server's "+
			"estimate (containers plus bookkeeping) and its latency that server's; TR.STAT's container bytes (data bytes) are what Tair would count")
	}
	if hasR && tr.InProcess {
		out = append(out, "the embedded server ran inside this process: it shared the client's cores, the Redis structures' server did not")
	}
	return out
}

func sumCard(p *result.BitmapPoint) uint64 {
	var n uint64
	for _, k := range p.Keys {
		n += k.Cardinality
	}
	return max(n, 1)
}

func orDash(ok bool, s string) string {
	if !ok {
		return "—"
	}
	return s
}

func uniq(xs []string) []string {
	var out []string
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}

// single says whether a winner cell names one structure.
func single(w string) bool { return w != "—" && !strings.HasPrefix(w, "≈") }
