package resultset

import (
	"fmt"
	"strings"

	"github.com/tairbench/tairbench/pkg/result"
)

// SetupRow is one item of two runs' set-ups, side by side.
type SetupRow struct {
	Item, A, B string
	// Differs marks an item whose values differ: the comparison then
	// measures that difference too, not only the change under test.
	Differs bool
}

// Setup lists what two runs were: their target, workload and load.
func Setup(a, b *result.Run) []SetupRow {
	items := []struct {
		name string
		get  func(*result.Run) string
	}{
		{"target", targetOf},
		{"command", func(r *result.Run) string { return r.Command }},
		{"mode", func(r *result.Run) string { return r.Config.Mode }},
		{"connections", func(r *result.Run) string { return fmt.Sprint(r.Config.Connections) }},
		{"pipeline", func(r *result.Run) string { return grouping(r, false) }},
		{"batch", func(r *result.Run) string { return grouping(r, true) }},
		{"loop", loopOf},
		{"duration", func(r *result.Run) string { return fmt.Sprintf("%.0f s", r.DurationMS/1000) }},
	}
	out := make([]SetupRow, 0, len(items))
	for _, it := range items {
		va, vb := it.get(a), it.get(b)
		out = append(out, SetupRow{Item: it.name, A: va, B: vb, Differs: va != vb})
	}
	return out
}

// targetOf names a run's target. An embedded server in the benchmarking
// process listens on a port of its own each run: its address is left
// out, so that two such runs have the same target.
func targetOf(r *result.Run) string {
	t := r.Config.Target
	if t == nil {
		return "(not recorded)"
	}
	if t.InProcess {
		return "tairbench's embedded server, not Tair (in this process)"
	}
	s := t.Addr
	if t.Cluster {
		s += " (cluster)"
	}
	return s
}

func grouping(r *result.Run, batch bool) string {
	tc := r.Config.Template
	if tc == nil {
		return "-"
	}
	n := tc.Pipeline
	if batch {
		n = tc.Batching
	}
	if n <= 1 {
		return "none"
	}
	return fmt.Sprint(n)
}

func loopOf(r *result.Run) string {
	if sc := r.Totals.Schedule; sc != nil && sc.Rate > 0 {
		return fmt.Sprintf("open at %.0f/s (%s)", sc.Rate, sc.Arrivals)
	}
	return "closed"
}

// SetupDiffers names the items in which two set-ups differ.
func SetupDiffers(rows []SetupRow) []string {
	var out []string
	for _, r := range rows {
		if r.Differs {
			out = append(out, r.Item)
		}
	}
	return out
}

func writeSetup(b *strings.Builder, rows []SetupRow) {
	fmt.Fprintf(b, "%-12s %-40s %-40s\n", "set-up", "A", "B")
	for _, r := range rows {
		mark := ""
		if r.Differs {
			mark = "  <- differs"
		}
		fmt.Fprintf(b, "%-12s %-40s %-40s%s\n", r.Item, clip(r.A, 40), clip(r.B, 40), mark)
	}
	if d := SetupDiffers(rows); len(d) > 0 {
		fmt.Fprintf(b, "!! WARNING: the set-ups differ in %s: the changes below measure that difference too, not only the one under test\n",
			strings.Join(d, ", "))
	}
	b.WriteString("\n")
}

func clip(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
