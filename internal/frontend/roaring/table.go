package roaring

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tairbench/tairbench/internal/report"
)

var groupTitles = map[string]string{
	GroupSingleRead:  "Single key, reads",
	GroupSingleWrite: "Single key, writes",
	GroupBatch:       "Batches (MULTI/EXEC): rate in bits per second, latency per batch",
	GroupMultiKey:    "Many keys (10^5)",
	GroupSetOps:      "Set operations",
	GroupCluster:     "Cluster (slot-aware client); reference: 2-shard cluster",
}

func num(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

func msf(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func ratio(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// WriteTables prints one table per group, in the whitepaper's shape, with
// p99, the reference and the ratio measured/reference beside it.
func WriteTables(w io.Writer, s *Suite, label string) error {
	var b strings.Builder
	if label != "" {
		fmt.Fprintf(&b, "%s\n", label)
	}
	if len(s.Loads) > 0 {
		b.WriteString("\nData loaded before the reads (timed separately):\n")
		for _, l := range s.Loads {
			fmt.Fprintf(&b, "  %-11s %8d commands in %6.2f s (%.0f/s): %s\n", l.Name, l.Commands, l.Seconds, l.PerSecond, l.Description)
		}
	}
	unit := ""
	if s.Config.SLO != "" {
		unit = "@SLO"
		fmt.Fprintf(&b, "\nCapacity at %s: each rate is the highest open-loop rate that held it (in commands, bits for batches, per second),\n"+
			"latencies are from the intended start at that rate, and the ratio is to the published maximum throughput.\n", s.Config.SLO)
	}
	var group string
	var tw *tabwriter.Writer
	flush := func() {
		if tw != nil {
			_ = tw.Flush()
		}
	}
	for _, cr := range s.Cases {
		c := cr.Case
		if c.Group != group {
			flush()
			group = c.Group
			fmt.Fprintf(&b, "\n%s\n", groupTitles[group])
			tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
			if group == GroupBatch {
				fmt.Fprintf(tw, "command\tparallel\tbatching\tbits/s%s\tavg ms\tp99 ms\tref bits/s\tref ms\tratio\t\t\n", unit)
			} else {
				fmt.Fprintf(tw, "command\tkeys\titems\targ range\tparallel\tQPS%s\tavg ms\tp99 ms\tref QPS\tref ms\tratio\t\t\n", unit)
			}
		}
		if group == GroupBatch {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Command, c.Parallel, c.Batching, num(cr.Rate),
				msf(cr.LatencyMS), msf(cr.P99MS), num(c.Ref.Rate), msf(c.Ref.LatencyMS), ratioCell(cr), report.RoaringNote(cr))
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Command, c.Keys, c.Items, c.ArgRange, c.Parallel,
				num(cr.Rate), msf(cr.LatencyMS), msf(cr.P99MS), num(c.Ref.Rate), msf(c.Ref.LatencyMS), ratioCell(cr), report.RoaringNote(cr))
		}
	}
	flush()
	var notes []string
	seen := map[string]bool{}
	for _, cr := range s.Cases {
		if n := cr.Case.Note; n != "" && !seen[n] {
			seen[n] = true
			notes = append(notes, fmt.Sprintf("  %s: %s", cr.Case.ID, n))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n" + strings.Join(notes, "\n") + "\n")
	}
	if len(s.Warnings) > 0 {
		b.WriteString("\n")
		report.WriteWarnings(&b, s.Warnings)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ratioCell is the ratio to the reference, or "data differs" where the
// case's data is known not to be the whitepaper's.
func ratioCell(cr CaseResult) string {
	if cr.DataDiffers != "" {
		return "data differs"
	}
	return ratio(cr.Ratio)
}
