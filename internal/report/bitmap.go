package report

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tairbench/tairbench/pkg/result"
)

// BitmapTieWithin is how close two closed-loop means must be to call
// neither faster: one run each cannot tell them apart on a shared machine.
const BitmapTieWithin = 0.15

// BitmapNoiseSeconds is how many seconds a timed run needs before its
// per-second means say how noisy it was; shorter runs set no crossover.
const BitmapNoiseSeconds = 2

// BitmapQueueingAt is how many times the server's own time per call the
// client's mean latency must be, with more than one connection, to be
// named queueing.
const BitmapQueueingAt = 2.0

// Table is a verdict table as every surface shows it: a header, rows of
// cells, and notes under it.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string
}

// WriteTable prints a verdict table: its title, its rows aligned, its
// notes under it.
func WriteTable(w io.Writer, t Table) {
	fmt.Fprintln(w, t.Title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t\n", strings.Join(t.Header, "\t"))
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t\n", strings.Join(r, "\t"))
	}
	_ = tw.Flush()
	for _, n := range t.Notes {
		fmt.Fprintf(w, "  — %s\n", n)
	}
}

// BitmapOpsTitle heads a point's operations table.
const BitmapOpsTitle = "operations, closed loop: mean ms / p99 ms / ops/s (open loop, when run: latency from the intended start)"

// BitmapOps is one point's operations table: per operation each
// structure's closed-loop mean, p99 and rate, and the fastest; its notes
// say what a structure cannot answer and where a latency is queueing.
func BitmapOps(p *result.BitmapPoint, connections int) Table {
	t := Table{Title: BitmapOpsTitle, Header: []string{"operation"}}
	for _, s := range p.Structures {
		t.Header = append(t.Header, s.Name)
	}
	t.Header = append(t.Header, "fastest")
	for _, op := range p.Operations {
		row := []string{op.Name}
		for _, r := range op.Results {
			row = append(row, bitmapCell(r))
			if r.Unsupported != "" {
				t.Notes = append(t.Notes, fmt.Sprintf("%s, %s: %s", op.Name, r.Structure, r.Unsupported))
			}
		}
		t.Rows = append(t.Rows, append(row, BitmapFastest(op)))
	}
	t.Notes = append(t.Notes, BitmapQueueing(p, connections)...)
	return t
}

func bitmapCell(r result.BitmapOpResult) string {
	if r.Closed == nil {
		return "—"
	}
	t := r.Closed.Totals
	s := fmt.Sprintf("%.3f / %.3f / %s", t.Latency.Mean/1000, t.Latency.P99/1000, RateText(t.OpsPerSec))
	if r.Open != nil && r.Open.Totals.CorrectedLatency != nil {
		c := r.Open.Totals.CorrectedLatency
		s += fmt.Sprintf(" (open %.3f / %.3f)", c.Mean/1000, c.P99/1000)
	}
	return s
}

// RateText is a rate with K or M.
func RateText(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f K", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// BitmapQueueing names each closed-loop latency that is mostly queueing:
// with more than one connection, a mean at least BitmapQueueingAt times
// the server's own time per call (INFO commandstats usec_per_call), where
// the connections' calls (connections × that time) make up at least a
// quarter of it: time spent waiting for the others' calls, not on the
// network (a 60 µs round trip around a 1 µs call is not queueing).
func BitmapQueueing(p *result.BitmapPoint, connections int) []string {
	if connections < 2 {
		return nil
	}
	var out []string
	for _, op := range p.Operations {
		for _, r := range op.Results {
			if r.Closed == nil || r.ServerUsecPerCall <= 0 {
				continue
			}
			mean := r.Closed.Totals.Latency.Mean
			if mean < BitmapQueueingAt*r.ServerUsecPerCall || float64(connections)*r.ServerUsecPerCall < mean/4 {
				continue
			}
			out = append(out, fmt.Sprintf("%s, %s: the mean %.3f ms at %d connections is mostly queueing: the server spent %.3f ms per call "+
				"(INFO commandstats usec_per_call); %d connections × %.3f ms = %.3f ms, so each call waited for the others' (run with -c 1 for the service time)",
				op.Name, r.Structure, mean/1000, connections, r.ServerUsecPerCall/1000, connections, r.ServerUsecPerCall/1000,
				float64(connections)*r.ServerUsecPerCall/1000))
		}
	}
	return out
}

// bitmapNoise is the standard error of a closed-loop run's mean latency
// from its seconds' means (µs), and whether it had BitmapNoiseSeconds of
// them.
func bitmapNoise(r *result.Run) (float64, bool) {
	var means []float64
	for _, iv := range r.Series {
		if iv.MeanUS != nil && iv.Ops > 0 {
			means = append(means, *iv.MeanUS)
		}
	}
	if len(means) < BitmapNoiseSeconds {
		return 0, false
	}
	m := 0.0
	for _, v := range means {
		m += v
	}
	m /= float64(len(means))
	ss := 0.0
	for _, v := range means {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss/float64(len(means)-1)) / math.Sqrt(float64(len(means))), true
}

// BitmapFastest is the structure with the lowest closed-loop mean latency,
// or "≈ a, b, …" listing, fastest first, every structure the fastest does
// not lead beyond the noise: within BitmapTieWithin of it, or within twice
// the two means' combined standard error (from their seconds).
func BitmapFastest(op result.BitmapOperation) string {
	names := bitmapTied(op)
	switch len(names) {
	case 0:
		return "—"
	case 1:
		return names[0]
	}
	return "≈ " + strings.Join(names, ", ")
}

func bitmapTied(op result.BitmapOperation) []string {
	var idx []int
	mean := func(i int) float64 { return op.Results[i].Closed.Totals.Latency.Mean }
	for i, r := range op.Results {
		if r.Closed != nil && r.Closed.Totals.Ops > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	sort.SliceStable(idx, func(a, b int) bool { return mean(idx[a]) < mean(idx[b]) })
	best := idx[0]
	seBest, _ := bitmapNoise(op.Results[best].Closed)
	names := []string{op.Results[best].Structure}
	for _, i := range idx[1:] {
		se, _ := bitmapNoise(op.Results[i].Closed)
		if mean(i) <= mean(best)*(1+BitmapTieWithin) || mean(i)-mean(best) <= 2*math.Hypot(se, seBest) {
			names = append(names, op.Results[i].Structure)
		}
	}
	return names
}

// bitmapMeasured says whether every timed closed-loop run of op had the
// seconds to measure its noise.
func bitmapMeasured(op result.BitmapOperation) bool {
	for _, r := range op.Results {
		if r.Closed != nil && r.Closed.Totals.Ops > 0 {
			if _, ok := bitmapNoise(r.Closed); !ok {
				return false
			}
		}
	}
	return true
}

// BitmapSmallest is the structure with the least memory.
func BitmapSmallest(p result.BitmapPoint) string {
	best := ""
	var bytes uint64
	for _, s := range p.Structures {
		if best == "" || s.MemoryBytes < bytes {
			best, bytes = s.Name, s.MemoryBytes
		}
	}
	return best
}

// BitmapWinsTitle heads the sweep's table of winners.
var BitmapWinsTitle = fmt.Sprintf("where each structure wins (memory: least MEMORY USAGE; operations: lowest closed-loop mean latency, "+
	"≈ lists every structure within %.0f%% of the fastest or within its runs' noise)", BitmapTieWithin*100)

// BitmapWins is, over two or more points, the winner of each measure at
// each cardinality (nil for fewer points).
func BitmapWins(doc *result.BitmapComparison) *Table {
	if len(doc.Points) < 2 {
		return nil
	}
	t := &Table{Title: BitmapWinsTitle, Header: []string{"cardinality"}}
	for _, p := range doc.Points {
		t.Header = append(t.Header, fmt.Sprint(p.Cardinality))
	}
	row := []string{"memory"}
	for _, p := range doc.Points {
		row = append(row, BitmapSmallest(p))
	}
	t.Rows = append(t.Rows, row)
	for oi, name := range doc.Config.Operations {
		row := []string{name}
		for _, p := range doc.Points {
			w := "—"
			if oi < len(p.Operations) {
				w = BitmapFastest(p.Operations[oi])
			}
			row = append(row, w)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// BitmapCrossovers are the points where a measure's single winner
// changes. A latency crossover needs both points' leads beyond the noise
// (BitmapFastest) and runs long enough to measure it; one from shorter
// runs is listed as not established.
func BitmapCrossovers(doc *result.BitmapComparison) []string {
	t := BitmapWins(doc)
	if t == nil {
		return nil
	}
	var out []string
	for ri, row := range t.Rows {
		for i := 2; i < len(row); i++ {
			a, b := row[i-1], row[i]
			if a == b || !singleWinner(a) || !singleWinner(b) {
				continue
			}
			line := fmt.Sprintf("%s: %s up to %d, %s from %d", row[0], a, doc.Points[i-2].Cardinality, b, doc.Points[i-1].Cardinality)
			if ri > 0 && !bitmapCrossMeasured(doc, ri-1, i-2) {
				line += fmt.Sprintf(" (not established: runs under %d s cannot tell a lead from noise; give --duration %d or more)",
					BitmapNoiseSeconds, BitmapNoiseSeconds)
			}
			out = append(out, line)
		}
	}
	if len(out) == 0 {
		out = []string{"none: each measure has one winner over the whole sweep"}
	}
	return out
}

func bitmapCrossMeasured(doc *result.BitmapComparison, op, point int) bool {
	for _, p := range doc.Points[point : point+2] {
		if op >= len(p.Operations) || !bitmapMeasured(p.Operations[op]) {
			return false
		}
	}
	return true
}

func singleWinner(w string) bool { return w != "—" && !strings.HasPrefix(w, "≈") }
