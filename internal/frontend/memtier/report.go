package memtier

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// percentiles parses --print-percentiles.
func (o Options) percentiles() ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(o.Percentiles, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || p < 0 || p > 100 {
			return nil, fmt.Errorf("--print-percentiles %q: numbers from 0 to 100", o.Percentiles)
		}
		out = append(out, p)
	}
	return out, nil
}

// row is one line of memtier's table.
type row struct {
	typ                    string
	opsSec                 float64
	hits, misses           *float64
	count                  int64
	hist                   *hdr.Histogram
	mean, min, max         float64
	series                 []result.IntervalOperation
	hasLatency, hitsMisses bool
	// rx and tx are KB per second read and sent (nil when not counted).
	rx, tx *float64
}

// typeName is memtier's name for an operation type: "Sets", "Gets".
func typeName(op string) string {
	op = strings.ToLower(op)
	if op == "" {
		return op
	}
	return strings.ToUpper(op[:1]) + op[1:] + "s"
}

// rows builds the table's rows from a run: one per operation type, then
// Totals, whose histogram is the run's.
func rows(run *result.Run) ([]row, error) {
	hist, err := run.LatencyHistogram()
	if err != nil {
		return nil, fmt.Errorf("the run's latency: %w", err)
	}
	secs := run.DurationMS / 1000
	perSec := func(n int64) *float64 {
		v := 0.0
		if secs > 0 {
			v = float64(n) / secs
		}
		return &v
	}
	var out []row
	ops := run.Operations
	if len(ops) == 0 { // one --command
		name := "Command"
		if f := strings.Fields(run.Command); len(f) > 0 {
			name = strings.ToUpper(f[0])
		}
		ops = []result.Operation{{Name: name, Ops: run.Totals.Ops, Misses: run.Totals.Misses, OpsPerSec: run.Totals.OpsPerSec,
			Latency: run.Totals.Latency, Histogram: run.Histogram, BytesIn: run.Totals.BytesIn, BytesOut: run.Totals.BytesOut}}
	}
	kb := func(in, out int64) (rx, tx *float64) {
		if in+out == 0 || secs <= 0 {
			return nil, nil
		}
		r, t := float64(in)/1024/secs, float64(out)/1024/secs
		return &r, &t
	}
	var hits, misses int64
	for i, o := range ops {
		r := row{typ: typeName(o.Name), opsSec: o.OpsPerSec, count: o.Ops, mean: o.Latency.Mean, min: o.Latency.Min, max: o.Latency.Max,
			hasLatency: o.Requests > 0 || o.Ops > 0}
		r.rx, r.tx = kb(o.BytesIn, o.BytesOut)
		if o.Histogram != "" {
			r.hist, _ = hdr.Decode([]byte(o.Histogram))
		}
		if o.Name == "GET" {
			r.hitsMisses = true
			r.hits, r.misses = perSec(o.Ops-o.Misses), perSec(o.Misses)
			hits += o.Ops - o.Misses
			misses += o.Misses
		}
		for _, iv := range run.Series {
			if i < len(iv.Operations) {
				r.series = append(r.series, iv.Operations[i])
			}
		}
		out = append(out, r)
	}
	tot := row{typ: "Totals", opsSec: run.Totals.OpsPerSec, count: run.Totals.Ops, hist: hist, mean: run.Totals.Latency.Mean,
		min: run.Totals.Latency.Min, max: run.Totals.Latency.Max, hasLatency: run.Totals.Ops > 0, hitsMisses: true,
		hits: perSec(hits), misses: perSec(misses)}
	tot.rx, tot.tx = kb(run.Totals.BytesIn, run.Totals.BytesOut)
	return append(out, tot), nil
}

// Table prints memtier's ALL STATS table and, unless --hide-histogram,
// the request latency distribution. Latencies are in milliseconds.
func Table(w io.Writer, o Options, run *result.Run) error {
	pcts, err := o.percentiles()
	if err != nil {
		return err
	}
	rs, err := rows(run)
	if err != nil {
		return err
	}
	var b strings.Builder
	header := fmt.Sprintf("%-8s %12s %12s %12s %15s", "Type", "Ops/sec", "Hits/sec", "Misses/sec", "Avg. Latency")
	for _, p := range pcts {
		header += fmt.Sprintf(" %15s", "p"+fmtPct(p)+" Latency")
	}
	header += fmt.Sprintf(" %12s", "KB/sec")
	line := strings.Repeat("-", len(header))
	b.WriteString("\nALL STATS\n" + strings.Repeat("=", len(header)) + "\n" + header + "\n" + line + "\n")
	for _, r := range rs {
		opt := func(v *float64) string {
			if !r.hitsMisses || v == nil {
				return "---"
			}
			return fmt.Sprintf("%.2f", *v)
		}
		fmt.Fprintf(&b, "%-8s %12.2f %12s %12s", r.typ, r.opsSec, opt(r.hits), opt(r.misses))
		if r.hasLatency && r.hist != nil && r.hist.TotalCount() > 0 {
			fmt.Fprintf(&b, " %15.5f", r.mean/1000)
			for _, p := range pcts {
				fmt.Fprintf(&b, " %15.5f", float64(r.hist.ValueAtQuantile(p))/1000)
			}
		} else {
			fmt.Fprintf(&b, " %15s", "---")
			for range pcts {
				fmt.Fprintf(&b, " %15s", "---")
			}
		}
		if r.rx != nil {
			fmt.Fprintf(&b, " %12.2f\n", *r.rx+*r.tx)
		} else {
			fmt.Fprintf(&b, " %12s\n", "---")
		}
	}
	if rs[len(rs)-1].rx == nil {
		b.WriteString("(KB/sec: no bytes were counted)\n")
	}
	if !o.HideHistogram {
		b.WriteString("\n\nRequest Latency Distribution\n")
		fmt.Fprintf(&b, "%-8s %12s %12s\n", "Type", "<= msec", "Percent")
		b.WriteString(strings.Repeat("-", 72) + "\n")
		for _, r := range rs[:len(rs)-1] {
			if r.hist == nil || r.hist.TotalCount() == 0 {
				continue
			}
			up := strings.ToUpper(strings.TrimSuffix(r.typ, "s"))
			for _, st := range report.HalvingPercentiles(r.hist) {
				fmt.Fprintf(&b, "%-8s %12.3f %12.3f\n", up, float64(st.Value)/1000, st.Percent)
			}
			fmt.Fprintf(&b, "%-8s %12.3f %12.3f\n---\n", up, float64(r.hist.Max())/1000, 100.0)
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func fmtPct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

// JSON is memtier's --json-out-file document, from tairbench's run.
func JSON(o Options, args []string, run *result.Run) (map[string]any, error) {
	pcts, err := o.percentiles()
	if err != nil {
		return nil, err
	}
	rs, err := rows(run)
	if err != nil {
		return nil, err
	}
	start := run.StartedAt.UnixMilli()
	all := map[string]any{
		"Runtime": map[string]any{"Start time": start, "Finish time": start + int64(run.DurationMS+run.WarmupMS),
			"Total duration": int64(run.DurationMS), "Time unit": "MILLISECONDS"},
	}
	for _, r := range rs {
		m := map[string]any{"Count": r.count, "Ops/sec": round2(r.opsSec), "KB/sec": nil,
			"Connection Errors": run.Totals.ConnectFailures}
		if r.rx != nil {
			m["KB/sec"], m["KB/sec RX/TX"] = round2(*r.rx+*r.tx), round2(*r.rx+*r.tx)
			m["KB/sec RX"], m["KB/sec TX"] = round2(*r.rx), round2(*r.tx)
		}
		if r.hitsMisses {
			m["Hits/sec"], m["Misses/sec"] = round2(*r.hits), round2(*r.misses)
		}
		if r.hist != nil && r.hist.TotalCount() > 0 {
			m["Latency"], m["Average Latency"] = round3(r.mean/1000), round3(r.mean/1000)
			m["Min Latency"], m["Max Latency"] = round3(r.min/1000), round3(r.max/1000)
			pl := map[string]any{}
			for _, p := range pcts {
				pl["p"+strconv.FormatFloat(p, 'f', 2, 64)] = round3(float64(r.hist.ValueAtQuantile(p)) / 1000)
			}
			if enc := result.EncodeHistogram(r.hist); enc != "" {
				pl["Histogram log format"] = map[string]any{"Compressed Histogram": enc, "Unit": "microseconds"}
			}
			m["Percentile Latencies"] = pl
		}
		ts := map[string]any{}
		for i, iv := range r.series {
			s := map[string]any{"Count": iv.Ops}
			if iv.MeanUS != nil {
				s["Average Latency"], s["p50.00"], s["p99.00"] = round3(*iv.MeanUS/1000), round3(*iv.P50US/1000), round3(*iv.P99US/1000)
			}
			ts[strconv.Itoa(i)] = s
		}
		if len(ts) > 0 {
			m["Time-Serie"] = ts
		}
		all[r.typ] = m
	}
	cfg := map[string]any{"server": o.Server, "port": o.Port, "authenticate": o.Auth != "", "protocol": o.Protocol,
		"clients": o.Clients, "threads": o.Threads, "requests": o.Requests, "test_time": o.TestTime, "ratio": o.Ratio,
		"data_size": o.DataSize, "select_db": o.SelectDB, "key_pattern": o.KeyPattern, "key_minimum": o.KeyMinimum,
		"key_maximum": o.KeyMaximum, "key_prefix": o.KeyPrefix, "pipeline": o.Pipeline, "cluster_mode": o.ClusterMode,
		"print_percentiles": o.Percentiles, "command_line": "memtier_benchmark " + strings.Join(RedactedArgs(args), " ")}
	return map[string]any{
		"configuration":   cfg,
		"run information": map[string]any{"Tool": "tairbench memtier " + run.Version, "Total Duration": int64(run.DurationMS)},
		"ALL STATS":       all,
	}, nil
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
