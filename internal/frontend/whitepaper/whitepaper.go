// Package whitepaper runs the whitepaper's redis-benchmark and memtier
// tables again through tairbench's front-ends for those tools, and sets the
// published figures beside the measured ones: the enhanced edition's GET
// and SET tables (four value sizes, with their cumulative latency
// distributions) and the cluster edition's QPS table.
package whitepaper

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/memtier"
	"github.com/tairbench/tairbench/internal/frontend/redisbenchmark"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/pkg/result"
)

// PublishedRequests is the enhanced edition's -n: 3,000,000 per test.
const PublishedRequests = 3_000_000

// Options configure a suite run.
type Options struct {
	// Requests is -n per enhanced-edition case (default 300,000; the
	// whitepaper's is PublishedRequests).
	Requests int64
	// TestTime is the cluster case's --test-time (default 30 s; the
	// whitepaper's is 1800 s).
	TestTime time.Duration
	// Sizes limits the enhanced edition's value sizes (default all four).
	Sizes         []int
	Seed          uint64
	NoServerStats bool
	Version       string
	// Log receives a line per case as it starts.
	Log io.Writer
	// SLO, when set, makes each measured case (not a YCSB load) a capacity
	// search for it: the case's QPS is the highest open-loop rate that held.
	SLO *capacity.Options
	// Plan, when set, makes the suite a dry run: each case is printed on
	// it (PlanTarget names the target) and nothing is sent.
	Plan       *harness.Plan
	PlanTarget string
}

// runCase runs one case through capacity.Case, or in a dry run prints it
// and returns an empty run.
func (o Options) runCase(ctx context.Context, name string, slo *capacity.Options, mk capacity.MakeSpec) (*result.Run, *result.CapacitySearch, error) {
	if o.Plan == nil {
		return capacity.Case(ctx, slo, mk)
	}
	spec, err := mk()
	if err != nil {
		return nil, nil, err
	}
	if slo != nil {
		spec.Engine.Duration, spec.Engine.Warmup, spec.Engine.Rate = slo.Window, slo.Warmup, slo.Start
		o.Plan.Search(name, slo.SLO.String(), spec.Command, o.PlanTarget, spec.Engine, slo.MostRuns())
	} else {
		o.Plan.Run(name, spec.Command, o.PlanTarget, spec.Engine)
	}
	return &result.Run{Name: name}, nil, nil
}

// search is the SLO's options for one case, logging to the suite's log.
func (o Options) search() *capacity.Options {
	if o.SLO == nil {
		return nil
	}
	so := *o.SLO
	so.Log, so.Version = o.Log, o.Version
	return &so
}

// applyCapacity makes c's measured QPS the search's answer, when there was one.
func applyCapacity(c *result.WhitepaperCase, search *result.CapacitySearch) {
	if search == nil {
		return
	}
	c.Capacity = search
	c.Measured.QPS = search.HighestHeld
	if c.Reference.QPS > 0 {
		c.Ratio = c.Measured.QPS / c.Reference.QPS
	}
}

func (o *Options) defaults() {
	if o.Requests <= 0 {
		o.Requests = 300_000
	}
	if o.TestTime <= 0 {
		o.TestTime = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
}

// cumulative is the percent of the run's requests at or below each step
// of 0.1 ms, for n steps: of its latency from the intended start when a
// capacity search found it (searched), else from the send.
func cumulative(run *result.Run, searched bool, n int) ([]result.CumulativeStep, error) {
	hist := run.LatencyHistogram
	if searched && run.HistogramCorrected != "" {
		hist = run.CorrectedHistogram
	}
	h, err := hist()
	if err != nil || h == nil {
		return nil, err
	}
	total := h.TotalCount()
	if total == 0 {
		return nil, nil
	}
	out := make([]result.CumulativeStep, 0, n)
	for step := 1; step <= n; step++ {
		c := report.CountAtOrBelow(h, int64(step)*100) // µs
		out = append(out, result.CumulativeStep{LEms: float64(step) / 10, Percent: 100 * float64(c) / float64(total)})
	}
	return out, nil
}

// Enhanced runs the enhanced edition's tables: for each value size, the
// SET line and then the GET line (so that GETs find the keys), as
// redis-benchmark -n N -r 100000 -c 256 -t set|get -d SIZE --threads 16.
func Enhanced(ctx context.Context, tg endpoint.Target, o Options) (*result.WhitepaperSuite, error) {
	o.defaults()
	suite := &result.WhitepaperSuite{Header: result.NewHeader(result.SchemaWhitepaper, o.Version), Suite: "enhanced",
		Source:      "Tair enhanced edition (performance-enhanced, redis.amber.master.large.multithread): GET and SET with redis-benchmark",
		CommandLine: fmt.Sprintf("redis-benchmark -h HOST -p PORT -a ACCOUNT:*** -n %d -r 100000 -c 256 -t set|get -d SIZE --threads 16", o.Requests),
		Target:      tg.Result()}
	if o.Requests != PublishedRequests {
		suite.Scale = fmt.Sprintf("-n %d per case instead of the published %d", o.Requests, PublishedRequests)
	}
	for _, size := range []int{64, 128, 256, 1024} {
		if len(o.Sizes) > 0 && !slices.Contains(o.Sizes, size) {
			continue
		}
		for _, op := range []string{"set", "get"} {
			ref := findRef(op, size)
			rb := redisbenchmark.Defaults()
			rb.Clients, rb.Requests, rb.KeySpace, rb.DataSize, rb.Threads = 256, o.Requests, 100000, size, 16
			rb.Selected, rb.Seed, rb.NoServerStats = []string{op}, o.Seed, o.NoServerStats
			tests, err := rb.Tests()
			if err != nil {
				return suite, err
			}
			name := fmt.Sprintf("%s %d B", strings.ToUpper(op), size)
			fmt.Fprintf(o.Log, "whitepaper enhanced: %s, %d requests\n", name, o.Requests)
			run, search, err := o.runCase(ctx, name, o.search(), func() (run.Spec, error) { return rb.Spec(tests[0], o.Version, tg, nil) })
			if err != nil {
				return suite, fmt.Errorf("%s: %w", name, err)
			}
			run.Name = name
			cum, err := cumulative(run, search != nil, 20)
			if err != nil {
				return suite, fmt.Errorf("%s: %w", name, err)
			}
			c := result.WhitepaperCase{Name: name, Command: tests[0].Template, Reference: ref.figures(), Run: run,
				Measured: result.WhitepaperFigures{QPS: run.Totals.OpsPerSec, Cumulative: cum}}
			if ref.qps > 0 {
				c.Ratio = run.Totals.OpsPerSec / ref.qps
			}
			applyCapacity(&c, search)
			suite.Cases = append(suite.Cases, c)
			if ctx.Err() != nil {
				return suite, nil
			}
		}
	}
	return suite, nil
}

func findRef(op string, size int) enhancedRef {
	for _, r := range enhancedRefs {
		if r.op == op && r.valueSize == size {
			return r
		}
	}
	return enhancedRef{op: op, valueSize: size}
}

// WhitepaperClusterLine is the cluster table's memtier line after the
// program name, without its host, password and test time.
const WhitepaperClusterLine = "-c 20 -d 32 --threads=10 --ratio=1:1 --select-db=10"

// Cluster runs the cluster table's memtier line through the cluster client
// (--cluster-mode; --select-db is dropped, as a Redis Cluster has only db
// 0) for TestTime, and sets the measured QPS beside each instance type's
// published QPS.
func Cluster(ctx context.Context, tg endpoint.Target, o Options) (*result.WhitepaperSuite, error) {
	o.defaults()
	secs := max(1, int(o.TestTime.Seconds()))
	args := append(strings.Fields(strings.Replace(WhitepaperClusterLine, "--select-db=10", "", 1)),
		"--test-time="+strconv.Itoa(secs), "--cluster-mode")
	mo, err := memtier.Parse(args)
	if err != nil {
		return nil, err
	}
	mo.NoServerStats = o.NoServerStats
	tg.Cluster, tg.DB = true, 0
	suite := &result.WhitepaperSuite{Header: result.NewHeader(result.SchemaWhitepaper, o.Version), Suite: "cluster",
		Source:      "Redis cluster edition, dual-replica: QPS reference values measured with memtier_benchmark",
		CommandLine: "memtier_benchmark -s HOST -p PORT -a *** " + strings.Join(args, " "),
		Target:      tg.Result(), References: clusterRefs}
	if secs != 1800 {
		suite.Scale = fmt.Sprintf("--test-time=%d instead of the published 1800; --cluster-mode instead of --select-db=10", secs)
	}
	seed := o.Seed
	fmt.Fprintf(o.Log, "whitepaper cluster: memtier %s\n", strings.Join(args, " "))
	run, search, err := o.runCase(ctx, "memtier SET:GET 1:1", o.search(), func() (run.Spec, error) { return mo.RunSpec("cluster", o.Version, tg, seed, nil) })
	if err != nil {
		return suite, err
	}
	run.Name = "memtier SET:GET 1:1"
	cum, err := cumulative(run, search != nil, 20)
	if err != nil {
		return suite, err
	}
	c := result.WhitepaperCase{Name: run.Name, Command: run.Command, Run: run,
		Measured: result.WhitepaperFigures{QPS: run.Totals.OpsPerSec, Cumulative: cum}}
	applyCapacity(&c, search)
	suite.Cases = append(suite.Cases, c)
	return suite, nil
}

// Write prints a suite's tables: the measured figures beside the
// published ones, then each case's warnings.
func Write(w io.Writer, s *result.WhitepaperSuite) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", s.Source)
	fmt.Fprintf(&b, "as run: %s\n", s.CommandLine)
	if s.Scale != "" {
		fmt.Fprintf(&b, "scaled: %s\n", s.Scale)
	}
	if s.Target != nil {
		where := report.TargetLine(s.Target)
		if s.Target.InProcess {
			where += " (client and server share this machine's cores)"
		}
		fmt.Fprintf(&b, "target: %s\n", where)
		if s.Target.NotTair() {
			b.WriteString("!! the published figures are Tair's: beside this target the ratios are for scale only\n")
		}
	}
	if s.SLO != "" {
		fmt.Fprintf(&b, "capacity at %s: each measured QPS is the highest open-loop rate that held it (searched per case; loads run as published),\n"+
			"its latencies are from the intended start at that rate, and the published QPS is the whitepaper's maximum throughput\n", s.SLO)
	}
	b.WriteString("\n")
	switch s.Suite {
	case "enhanced":
		writeEnhanced(&b, s)
	case "cluster":
		writeCluster(&b, s)
	case "pmem":
		writePMem(&b, s)
	case "essd":
		writeESSD(&b, s)
	case "persistence":
		writePersistence(&b, s)
	}
	if s.SLO != "" {
		writeCapacities(&b, s)
	}
	for _, c := range s.Cases {
		if c.Run != nil && len(c.Run.Warnings) > 0 {
			fmt.Fprintf(&b, "%s:\n", c.Name)
			report.WriteWarnings(&b, c.Run.Warnings)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCapacities lists each searched case's bracket and steps.
func writeCapacities(b *strings.Builder, s *result.WhitepaperSuite) {
	fmt.Fprintf(b, "\ncapacity searches (%s):\n", s.SLO)
	for _, c := range s.Cases {
		cs := c.Capacity
		if cs == nil {
			continue
		}
		name := c.Name
		if c.Section != "" {
			name = c.Section + ", " + c.Name
		}
		line := fmt.Sprintf("  %s: held %.0f/s", name, cs.HighestHeld)
		if cs.Unstable {
			line = fmt.Sprintf("  %s: no stable answer", name)
		} else if cs.BrokeAt > 0 {
			line += fmt.Sprintf(", broke at %.0f/s", cs.BrokeAt)
		}
		line += fmt.Sprintf(", %d step(s)", len(cs.Steps))
		b.WriteString(line + "\n")
		for _, w := range cs.Warnings {
			fmt.Fprintf(b, "    !! %s\n", w)
		}
	}
}

func writeEnhanced(b *strings.Builder, s *result.WhitepaperSuite) {
	fmt.Fprintf(b, "%-10s %14s %14s %7s %8s %8s %8s\n", "case", "QPS measured", "QPS published", "ratio", "p50 ms", "p99 ms", "errors")
	for _, c := range s.Cases {
		l := c.Run.Totals.Latency
		fmt.Fprintf(b, "%-10s %14.0f %14.0f %7.2f %8.3f %8.3f %8d\n", c.Name, c.Measured.QPS, c.Reference.QPS, c.Ratio,
			l.P50/1000, l.P99/1000, c.Run.Totals.Errors)
	}
	for _, op := range []string{"SET", "GET"} {
		var cases []result.WhitepaperCase
		rows := 0
		for _, c := range s.Cases {
			if strings.HasPrefix(c.Name, op+" ") {
				cases = append(cases, c)
				rows = max(rows, len(c.Reference.Cumulative))
			}
		}
		if len(cases) == 0 {
			continue
		}
		// Enough rows for the measured distributions to reach 99.9%, up to 2 ms.
		for _, c := range cases {
			for i, st := range c.Measured.Cumulative {
				if st.Percent >= 99.9 {
					rows = max(rows, i+1)
					break
				}
				if i == len(c.Measured.Cumulative)-1 {
					rows = len(c.Measured.Cumulative)
				}
			}
		}
		fmt.Fprintf(b, "\n%s: %% of requests <= ms, measured (published)\n%-6s", op, "ms")
		for _, c := range cases {
			fmt.Fprintf(b, " %20s", strings.TrimPrefix(c.Name, op+" "))
		}
		b.WriteString("\n")
		for i := 0; i < rows; i++ {
			fmt.Fprintf(b, "%-6.1f", float64(i+1)/10)
			for _, c := range cases {
				m, p := "-", "-"
				if i < len(c.Measured.Cumulative) {
					m = fmt.Sprintf("%.2f", c.Measured.Cumulative[i].Percent)
				}
				if i < len(c.Reference.Cumulative) {
					p = fmt.Sprintf("%.2f", c.Reference.Cumulative[i].Percent)
				}
				fmt.Fprintf(b, " %20s", m+" ("+p+")")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

func writeCluster(b *strings.Builder, s *result.WhitepaperSuite) {
	if len(s.Cases) == 0 {
		return
	}
	c := s.Cases[0]
	t := c.Run.Totals
	fmt.Fprintf(b, "measured     %.0f ops/s (SET:GET 1:1), avg %.3f ms, p99 %.3f ms, %d errors, %d connections\n\n",
		c.Measured.QPS, t.Latency.Mean/1000, t.Latency.P99/1000, t.Errors, c.Run.Config.Connections)
	fmt.Fprintf(b, "%-26s %14s %14s\n", "published instance type", "QPS published", "measured/pub.")
	for _, r := range s.References {
		fmt.Fprintf(b, "%-26s %14.0f %14.2f\n", r.Name, r.QPS, c.Measured.QPS/r.QPS)
	}
	b.WriteString("\n")
}

// latencyCells prints each operation's measured average and p99 with the
// published ones in brackets.
func latencyCells(c result.WhitepaperCase) string {
	var b strings.Builder
	for _, m := range c.Measured.Latency {
		pub := func(f func(result.OpLatency) float64) string {
			for _, r := range c.Reference.Latency {
				if r.Op == m.Op {
					return strconv.FormatFloat(f(r), 'f', 0, 64)
				}
			}
			return "-"
		}
		fmt.Fprintf(&b, "  %s avg %.0f (%s) p99 %.0f (%s)", m.Op, m.AvgUS, pub(func(r result.OpLatency) float64 { return r.AvgUS }),
			m.P99US, pub(func(r result.OpLatency) float64 { return r.P99US }))
	}
	return b.String()
}

func writePMem(b *strings.Builder, s *result.WhitepaperSuite) {
	b.WriteString("QPS measured (published) and ratio; latencies in µs, measured (published)\n")
	// One table per phase and group, as the whitepaper has them.
	var sections []string
	for _, phase := range []string{"Load", "Workload C", "Workload A"} {
		for _, c := range s.Cases {
			if strings.HasPrefix(c.Section, phase+",") && !slices.Contains(sections, c.Section) {
				sections = append(sections, c.Section)
			}
		}
	}
	for _, section := range sections {
		fmt.Fprintf(b, "\n%s\n", section)
		for _, c := range s.Cases {
			if c.Section != section {
				continue
			}
			pub, ratio := "-", "-"
			if c.Reference.QPS > 0 {
				pub, ratio = strconv.FormatFloat(c.Reference.QPS, 'f', 0, 64), strconv.FormatFloat(c.Ratio, 'f', 2, 64)
			}
			fmt.Fprintf(b, "  %-18s %9.0f (%7s) %5s %s\n", c.Name, c.Measured.QPS, pub, ratio, latencyCells(c))
		}
	}
	b.WriteString("\n")
}

func writeESSD(b *strings.Builder, s *result.WhitepaperSuite) {
	b.WriteString("measured, with tair.essd.standard.xlarge's published figures in brackets (latencies in µs)\n")
	for _, c := range s.Cases {
		fmt.Fprintf(b, "  %-26s %9.0f (%7.0f) %5.2f %s\n", c.Name, c.Measured.QPS, c.Reference.QPS, c.Ratio, latencyCells(c))
	}
	// The published QPS of every instance type, per table.
	type key struct{ workload, label string }
	byRow := map[key][]string{}
	var order []key
	var instances []string
	for _, r := range s.References {
		parts := strings.Split(r.Name, " | ")
		if len(parts) != 3 {
			continue
		}
		k := key{parts[0], parts[2]}
		if _, ok := byRow[k]; !ok {
			order = append(order, k)
		}
		byRow[k] = append(byRow[k], strconv.FormatFloat(r.QPS, 'f', 0, 64))
		if !slices.Contains(instances, parts[1]) {
			instances = append(instances, parts[1])
		}
	}
	fmt.Fprintf(b, "\npublished QPS per instance type (tair.essd.standard.*)\n  %-42s", "workload (table)")
	for _, in := range instances {
		fmt.Fprintf(b, " %9s", strings.TrimPrefix(in, "tair.essd.standard."))
	}
	b.WriteString("\n")
	for _, k := range order {
		fmt.Fprintf(b, "  %-42s", k.workload+" ("+k.label+")")
		for _, v := range byRow[k] {
			fmt.Fprintf(b, " %9s", v)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}
