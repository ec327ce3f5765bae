package vector

import (
	"fmt"
	"io"
	"strings"

	"github.com/tairbench/tairbench/internal/report"

	"github.com/tairbench/tairbench/pkg/result"
)

// Render writes the benchmark's tables: set-up, load and memory per
// engine, the sweep, QPS at recall side by side, and the notes.
func Render(w io.Writer, d *result.VectorBench) {
	c := d.Config
	build := c.Algorithm
	if c.Algorithm == "HNSW" {
		build = fmt.Sprintf("HNSW M=%d ef_construct=%d", c.M, c.EfConstruct)
	}
	fmt.Fprintf(w, "vector search on %s: %d base vectors, %d queries, %d dims, %s, k=%d; %s\n", c.Dataset, c.Base,
		c.Queries, c.Dims, c.Metric, c.K, build)
	fmt.Fprintf(w, "  data: %s\n", c.Source)
	if c.Stream {
		fmt.Fprintf(w, "  load: %d connections, %d vectors per request; then the stream: one inserter, %d searching connections, a probe",
			c.LoadConnections, c.Batch, c.Connections)
	} else {
		fmt.Fprintf(w, "  load: %d connections, %d vectors per request; search: %d connections, %.1f s closed loop per point "+
			"after %.1f s of warm-up", c.LoadConnections, c.Batch, c.Connections, c.DurationMS/1000, c.WarmupMS/1000)
	}
	if c.Rate > 0 {
		fmt.Fprintf(w, ", then %.0f/s open loop", c.Rate)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\n%-14s %10s %9s %10s %10s  %s\n", "engine", "insert/s", "build s", "index MB", "used MB", "target")
	for _, e := range d.Engines {
		fmt.Fprintf(w, "%-14s %10.0f %9.1f %10s %10s  %s\n", e.Engine, e.InsertPerSec, e.BuildSeconds, mb(e.Memory.Index),
			mb(e.Memory.Used), e.Target)
	}
	fmt.Fprintln(w)
	if c.Stream {
		report.WriteTable(w, report.VectorStream(d))
	} else {
		report.WriteTable(w, report.VectorPoints(d))
		renderAtRecall(w, d)
	}
	if len(d.Config.Selectivities) > 0 {
		fmt.Fprintln(w)
		report.WriteTable(w, report.VectorFiltered(d))
	}
	if len(d.Warnings) > 0 {
		fmt.Fprintln(w, "\nnotes:")
		for _, n := range d.Warnings {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

func renderAtRecall(w io.Writer, d *result.VectorBench) {
	if len(d.Engines) == 0 || len(d.Engines[0].AtRecall) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%-14s", "QPS at recall")
	for _, a := range d.Engines[0].AtRecall {
		fmt.Fprintf(w, " %10s", fmt.Sprintf("≥ %.2f", a.Recall))
	}
	fmt.Fprintln(w)
	for _, e := range d.Engines {
		fmt.Fprintf(w, "%-14s", e.Engine)
		for _, a := range e.AtRecall {
			if a.QPS == 0 {
				fmt.Fprintf(w, " %10s", "not reached")
				continue
			}
			fmt.Fprintf(w, " %10.0f", a.QPS)
		}
		fmt.Fprintln(w)
	}
}

func mb(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(b)/(1<<20))
}

// warnings says what the figures are and are not.
func warnings(d *result.VectorBench) []string {
	var out []string
	for _, e := range d.Engines {
		switch {
		case strings.Contains(e.Target, "embedded server, not Tair, in this process"):
			out = append(out, e.Engine+"'s figures come from tairbench's embedded server (Go, in this process), not Tair.")
		case strings.Contains(e.Target, "embedded server"):
			out = append(out, e.Engine+"'s figures come from tairbench's embedded server (Go, reached over the network), not Tair.")
		}
	}
	switch {
	case len(d.Engines) > 1 && d.Config.Stream:
		out = append(out, "Set-up differs: TairVector is not refreshed (the probe measures when a vector is found); Elasticsearch was force-merged after "+
			"the initial load, then refreshes every second, so a vector it acknowledged is searchable only after the next refresh.")
	case len(d.Engines) > 1:
		out = append(out, "Compare QPS only at equal recall (the \"QPS at recall\" rows): the engines' search "+
			"parameters (ef_search, num_candidates) do not mean the same breadth.",
			"Set-up differs: TairVector takes vectors as text over RESP and answers keys and distances; "+
				"Elasticsearch takes JSON over HTTP, is force-merged to one segment before the sweep and "+
				"searches its graph off the JVM heap (its index figure is the store on disk, not memory).")
	}
	out = append(out, "Recall@k as ann-benchmarks counts it: a returned neighbour is a hit when its distance is within "+
		"1e-3 of the true k-th nearest (exact search over every base vector; true L2, not squared), so ties are not misses.")
	return out
}
