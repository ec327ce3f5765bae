package resultset

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/tairbench/tairbench/pkg/result"
)

// WriteBitmapCompare prints two bitmap comparisons side by side, B against
// A: per point and structure the memory, per point, operation and
// structure the closed-loop mean latency, each with B/A; set-ups that
// differ (targets, cardinality, universe, keys, connections) are marked.
// Points pair up in order.
func WriteBitmapCompare(w io.Writer, nameA, nameB string, a, b *result.BitmapComparison) error {
	fmt.Fprintf(w, "A: %s\nB: %s\n", nameA, nameB)
	for _, s := range a.Config.Structures {
		ta, tb := a.Config.Targets[s], b.Config.Targets[s]
		if ta.Addr != tb.Addr || ta.NotTair() != tb.NotTair() {
			fmt.Fprintf(w, "set-up differs: %s ran on %s in A and on %s in B\n", s, describe(&ta), describe(&tb))
		}
	}
	if a.Config.Connections != b.Config.Connections {
		fmt.Fprintf(w, "set-up differs: %d connections in A, %d in B\n", a.Config.Connections, b.Config.Connections)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "point\tmeasure\tstructure\tA\tB\tB/A\t")
	for i := 0; i < min(len(a.Points), len(b.Points)); i++ {
		pa, pb := a.Points[i], b.Points[i]
		if pa.Cardinality != pb.Cardinality || pa.Universe != pb.Universe || len(pa.Keys) != len(pb.Keys) {
			fmt.Fprintf(tw, "%d\tset-up differs: %d IDs below %d in %d keys (A), %d below %d in %d keys (B)\t\t\t\t\t\n", i+1,
				pa.Cardinality, pa.Universe, len(pa.Keys), pb.Cardinality, pb.Universe, len(pb.Keys))
		}
		for _, sa := range pa.Structures {
			for _, sb := range pb.Structures {
				if sa.Name == sb.Name {
					fmt.Fprintf(tw, "%d\tmemory bytes\t%s\t%d\t%d\t%s\t\n", i+1, sa.Name, sa.MemoryBytes, sb.MemoryBytes, ratio(float64(sb.MemoryBytes), float64(sa.MemoryBytes)))
				}
			}
		}
		for _, oa := range pa.Operations {
			for _, ob := range pb.Operations {
				if oa.Name == ob.Name {
					writeOpRows(tw, i+1, oa, ob)
				}
			}
		}
	}
	if len(a.Points) != len(b.Points) {
		fmt.Fprintf(tw, "\tA has %d points, B %d: only the first %d are paired\t\t\t\t\t\n", len(a.Points), len(b.Points), min(len(a.Points), len(b.Points)))
	}
	return tw.Flush()
}

func writeOpRows(tw io.Writer, point int, oa, ob result.BitmapOperation) {
	for _, ra := range oa.Results {
		for _, rb := range ob.Results {
			if ra.Structure != rb.Structure || ra.Closed == nil || rb.Closed == nil {
				continue
			}
			ma, mb := ra.Closed.Totals.Latency.Mean/1000, rb.Closed.Totals.Latency.Mean/1000
			fmt.Fprintf(tw, "%d\t%s mean ms\t%s\t%.3f\t%.3f\t%s\t\n", point, oa.Name, ra.Structure, ma, mb, ratio(mb, ma))
		}
	}
}

func ratio(b, a float64) string {
	if a == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", b/a)
}

func describe(t *result.Target) string {
	if t.NotTair() {
		return t.Addr + " (tairbench's embedded server, not Tair)"
	}
	if t.Server != nil {
		return t.Addr + " (" + t.Server.Name + " " + t.Server.Version + ")"
	}
	return t.Addr
}
