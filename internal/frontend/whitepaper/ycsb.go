package whitepaper

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/ycsb"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/pkg/result"
)

// opRef is one operation's published average and 99th percentile latency (µs).
type opRef struct {
	op       string
	avg, p99 float64
}

// ycsbRef is one published row of the persistent-memory tables.
type ycsbRef struct {
	phase, group string
	fields, size int
	qps          float64
	ops          []opRef
}

// essdInstance is one instance type's rows in an ESSD table.
type essdInstance struct {
	name         string
	records, ops int64
	threads      int
	rows         []essdRow
}

// essdRow is one workload's published figures.
type essdRow struct {
	workload string
	qps      float64
	ops      []opRef
}

func latencies(ops []opRef) []result.OpLatency {
	out := make([]result.OpLatency, len(ops))
	for i, o := range ops {
		out[i] = result.OpLatency{Op: o.op, AvgUS: o.avg, P99US: o.p99}
	}
	return out
}

// YCSBOptions size the YCSB suites.
type YCSBOptions struct {
	Options
	// Records and Operations are recordcount and operationcount per case.
	Records, Operations int64
	Threads             int
	// Groups limits the persistent-memory suite's command groups.
	Groups []string
}

// flush empties the target between cases.
func flush(ctx context.Context, tg endpoint.Target, o Options) error {
	if o.Plan != nil {
		return nil // a dry run sends nothing
	}
	c, err := transport.Dial(ctx, tg)
	if err != nil {
		return err
	}
	defer c.Close()
	rep, err := c.Do("FLUSHALL")
	if err != nil {
		return err
	}
	if rep.IsError() {
		return fmt.Errorf("FLUSHALL: %s", rep.Err)
	}
	return nil
}

// ycsbCase runs one YCSB phase (args after "ycsb") against tg; a run
// phase is a capacity search when the options have an SLO.
func ycsbCase(ctx context.Context, tg endpoint.Target, o YCSBOptions, args []string) (*result.Run, *result.CapacitySearch, error) {
	c, err := ycsb.Parse(args)
	if err != nil {
		return nil, nil, err
	}
	wl, err := c.Workload()
	if err != nil {
		return nil, nil, err
	}
	var slo *capacity.Options
	if c.Phase == "run" {
		slo = o.search()
	}
	run, search, err := o.runCase(ctx, args[0]+" "+strings.TrimPrefix(args[3], "workloads/"), slo, func() (run.Spec, error) {
		spec := ycsb.RunSpec(c, wl, ycsb.NewFactory(tg, wl, c.Phase == "load"), tg, o.Seed, o.Version, nil)
		spec.Command = "ycsb " + strings.Join(args, " ")
		return spec, nil
	})
	return run, search, err
}

// measured are a run's QPS and, per operation, its latencies.
func measured(run *result.Run, ops []string) result.WhitepaperFigures {
	f := result.WhitepaperFigures{QPS: run.Totals.OpsPerSec}
	if len(run.Operations) > 0 {
		for _, o := range run.Operations {
			f.Latency = append(f.Latency, result.OpLatency{Op: o.Name, AvgUS: o.Latency.Mean, P99US: o.Latency.P99})
		}
		return f
	}
	if len(ops) > 0 {
		f.Latency = []result.OpLatency{{Op: ops[0], AvgUS: run.Totals.Latency.Mean, P99US: run.Totals.Latency.P99}}
	}
	return f
}

func (o *YCSBOptions) defaults(records int64) {
	o.Options.defaults()
	if o.Records <= 0 {
		o.Records = records
	}
	if o.Operations <= 0 {
		o.Operations = o.Records
	}
	if o.Threads <= 0 {
		o.Threads = 32
	}
}

func ycsbArgs(phase, workload string, o YCSBOptions, group string, fields, size int, extra ...string) []string {
	args := []string{phase, "redis", "-P", "workloads/" + workload,
		"-p", "recordcount=" + strconv.FormatInt(o.Records, 10), "-p", "operationcount=" + strconv.FormatInt(o.Operations, 10),
		"-p", "redis.command_group=" + group, "-p", "fieldcount=" + strconv.Itoa(fields), "-p", "fieldlength=" + strconv.Itoa(size),
		"-threads", strconv.Itoa(o.Threads)}
	if phase == "load" {
		args[7] = "operationcount=" + strconv.FormatInt(o.Records, 10)
	}
	return append(args, extra...)
}

// PMem runs the persistent-memory whitepaper's tables: for each command
// group and value length, a load, then workload C, then workload A, each
// beside the published QPS and latencies.
func PMem(ctx context.Context, tg endpoint.Target, o YCSBOptions) (*result.WhitepaperSuite, error) {
	o.defaults(20_000)
	suite := &result.WhitepaperSuite{Header: result.NewHeader(result.SchemaWhitepaper, o.Version), Suite: "pmem",
		Source:      "Tair persistent-memory instance: YCSB load, workload C and workload A per command group (fieldcount 1 for string, 10 otherwise)",
		CommandLine: "ycsb load|run redis -s -P workloads/workloada|workloadc -p recordcount=N -p operationcount=N -p redis.command_group=G -p fieldcount=F -p fieldlength=L -threads T",
		Target:      tg.Result(),
		Scale: fmt.Sprintf("recordcount=%d, operationcount=%d, %d threads (the whitepaper's counts and threads depend on the instance)",
			o.Records, o.Operations, o.Threads)}
	for _, group := range []string{"string", "hash", "list", "set", "zset"} {
		if len(o.Groups) > 0 && !slices.Contains(o.Groups, group) {
			continue
		}
		fields := 10
		if group == "string" {
			fields = 1
		}
		for _, size := range []int{128, 256, 1024, 2048, 4096} {
			if len(o.Sizes) > 0 && !slices.Contains(o.Sizes, size) {
				continue
			}
			if err := flush(ctx, tg, o.Options); err != nil {
				return suite, err
			}
			for _, ph := range []struct{ phase, workload, name string }{{"load", "workloada", "load"}, {"run", "workloadc", "c"}, {"run", "workloada", "a"}} {
				section := map[string]string{"load": "Load", "c": "Workload C", "a": "Workload A"}[ph.name] + ", " + group
				name := fmt.Sprintf("%d fields × %d B", fields, size)
				fmt.Fprintf(o.Log, "whitepaper pmem: %s, %s\n", section, name)
				run, search, err := ycsbCase(ctx, tg, o, ycsbArgs(ph.phase, ph.workload, o, group, fields, size))
				if err != nil {
					return suite, fmt.Errorf("%s %s: %w", section, name, err)
				}
				run.Name = section + ", " + name
				c := result.WhitepaperCase{Section: section, Name: name, Command: run.Command, Run: run,
					Measured: measured(run, []string{map[bool]string{true: "INSERT", false: "READ"}[ph.phase == "load"]})}
				for _, r := range pmemRefs {
					if r.phase == ph.name && r.group == group && r.size == size {
						c.Reference = result.WhitepaperFigures{QPS: r.qps, Latency: latencies(r.ops)}
						c.Ratio = c.Measured.QPS / r.qps
					}
				}
				applyCapacity(&c, search)
				suite.Cases = append(suite.Cases, c)
				if ctx.Err() != nil {
					return suite, nil
				}
			}
		}
	}
	return suite, nil
}

// ESSD runs the ESSD whitepaper's workloads (string group, one 100-byte
// field): load, uniform reads, zipfian reads and uniform 50/50 reads and
// updates, beside the "memory larger than data" table's figures for every
// instance type. The "data larger than memory" table needs an ESSD
// instance's data set; its figures are listed when a --host is measured.
func ESSD(ctx context.Context, tg endpoint.Target, o YCSBOptions, remote bool) (*result.WhitepaperSuite, error) {
	o.defaults(200_000)
	suite := &result.WhitepaperSuite{Header: result.NewHeader(result.SchemaWhitepaper, o.Version), Suite: "essd",
		Source:      "Tair ESSD-based instances: YCSB, string group, fieldcount=1, fieldlength=100",
		CommandLine: "ycsb load|run redis -s -P workloads/workloada|workloadc -p recordcount=N -p operationcount=N -p redis.command_group=string -p fieldcount=1 -p fieldlength=100 [-p requestdistribution=uniform|zipfian] -threads T",
		Target:      tg.Result(),
		Scale:       fmt.Sprintf("recordcount=%d, operationcount=%d, %d threads", o.Records, o.Operations, o.Threads)}
	if !remote {
		suite.Scale += `; the "data larger than memory" table needs an ESSD instance with more data than memory (run with --host and a large --records)`
	}
	if err := flush(ctx, tg, o.Options); err != nil {
		return suite, err
	}
	tables := essdRefs[:1]
	if remote {
		tables = essdRefs[:]
	}
	for i, step := range []struct{ name, phase, workload, dist string }{
		{"Load", "load", "workloada", ""},
		{"Uniform-Read", "run", "workloadc", "uniform"},
		{"Zipfian-Read", "run", "workloadc", "zipfian"},
		{"Uniform-50%Read-50%Update", "run", "workloada", "uniform"},
	} {
		var extra []string
		if step.dist != "" {
			extra = []string{"-p", "requestdistribution=" + step.dist}
		}
		fmt.Fprintf(o.Log, "whitepaper essd: %s\n", step.name)
		run, search, err := ycsbCase(ctx, tg, o, ycsbArgs(step.phase, step.workload, o, "string", 1, 100, extra...))
		if err != nil {
			return suite, fmt.Errorf("%s: %w", step.name, err)
		}
		run.Name = step.name
		ops := []string{"READ"}
		if step.phase == "load" {
			ops = []string{"INSERT"}
		}
		c := result.WhitepaperCase{Section: "ESSD", Name: step.name, Command: run.Command, Run: run, Measured: measured(run, ops)}
		first := essdRefs[0][0].rows[i]
		c.Reference = result.WhitepaperFigures{QPS: first.qps, Latency: latencies(first.ops)}
		c.Ratio = c.Measured.QPS / first.qps
		applyCapacity(&c, search)
		suite.Cases = append(suite.Cases, c)
		for t, table := range tables {
			label := map[int]string{0: "memory > data", 1: "data > memory"}[t]
			for _, inst := range table {
				suite.References = append(suite.References, result.WhitepaperReference{Name: step.name + " | " + inst.name + " | " + label,
					QPS: inst.rows[i].qps, Note: fmt.Sprintf("recordcount=%d threads=%d", inst.records, inst.threads)})
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	return suite, nil
}
