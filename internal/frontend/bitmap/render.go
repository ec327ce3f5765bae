package bitmap

import (
	"fmt"
	"io"
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
func writePoint(w io.Writer, i int, p *result.BitmapPoint, connections int) {
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
	writeOps(w, p, connections)
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

func writeOps(w io.Writer, p *result.BitmapPoint, connections int) {
	if len(p.Operations) == 0 {
		return
	}
	report.WriteTable(w, report.BitmapOps(p, connections))
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
	fmt.Fprintln(w)
	report.WriteTable(w, *report.BitmapWins(doc))
	fmt.Fprintln(w, "crossovers:")
	for _, c := range report.BitmapCrossovers(doc) {
		fmt.Fprintf(w, "  %s\n", c)
	}
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
