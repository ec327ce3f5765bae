package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/memtier"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

func newMemtierCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "memtier [OPTIONS]",
		Short: "Run a memtier_benchmark command line through tairbench's engine, with memtier's table and JSON",
		Long: `Takes memtier_benchmark's command line as is (change only the program name),
runs it through tairbench's engine (SET and GET by --ratio, or --command
templates, each connection cycling through the types as memtier does) and
prints memtier's ALL STATS table, then tairbench's line with the errors,
warnings and the server's own count.

` + memtier.Usage(),
		DisableFlagParsing: true,
		RunE:               func(c *cobra.Command, args []string) error { return runMemtier(c.Context(), args, a) },
	}
}

func runMemtier(ctx context.Context, args []string, a *app) error {
	o, err := memtier.Parse(args)
	if errors.Is(err, memtier.ErrHelp) {
		_, err = fmt.Fprintln(a.Out, memtier.Usage())
		return err
	}
	if err != nil {
		return err
	}
	tg, err := o.Target()
	tg, stop, err := frontEndTarget(a, tg, err, o.Embedded)
	if err != nil {
		return err
	}
	defer stop()
	seed := o.Seed
	if seed == 0 || o.Randomize {
		seed = engine.NewSeed()
	}
	if o.SLO.Given() {
		return memtierCapacity(ctx, a, o, tg, seed)
	}
	total, perClient := o.Budget()
	progress := memtierProgress(a.Err, o.Threads, time.Duration(o.TestTime)*time.Second, total+perClient*int64(o.Connections()))
	spec, err := o.RunSpec("memtier", a.version, tg, seed, progress)
	if err != nil {
		return err
	}
	spec.Log = a.Err
	fmt.Fprintf(a.Err, "tairbench memtier → %s: %d threads × %d connections, %s, seed %d\n", tg.Addr, o.Threads, o.Clients, spec.Config.Mode, seed)
	run, hist, err := run.Run(ctx, spec)
	if err != nil {
		return err
	}
	out := summaryTo(a, o.JSON)
	if err := memtier.Table(out, o, run, hist); err != nil {
		return err
	}
	fmt.Fprintln(out)
	ownLine(out, a.Err, false, run)
	if o.JSONOut != "" {
		doc, err := memtier.JSON(o, args, run, hist)
		if err != nil {
			return err
		}
		if err := writeDocument(a, o.JSONOut, doc); err != nil {
			return err
		}
	}
	if o.HDRPrefix != "" {
		if err := writeHDRFiles(a, o.HDRPrefix, run, hist); err != nil {
			return err
		}
	}
	doc := &result.Compat{Header: result.NewHeader(result.SchemaCompat, a.version), Tool: "memtier_benchmark",
		Args: memtier.RedactedArgs(args), Tests: []result.CompatTest{{Name: "ALL STATS", Run: run}}}
	if err := writeDocument(a, o.JSON, doc); err != nil {
		return err
	}
	if why := report.FailureReason(run); why != "" {
		return &ExitError{Code: ExitRunFailed, Err: errors.New(why)}
	}
	return nil
}

// memtierCapacity searches the highest rate at which the memtier line meets
// --slo; --rate-limiting, if given, is the first rate tried (per connection,
// as memtier counts it) unless --slo-start says otherwise.
func memtierCapacity(ctx context.Context, a *app, o memtier.Options, tg endpoint.Target, seed uint64) error {
	opts, err := o.SLO.Options()
	if err != nil {
		return err
	}
	if o.RateLimiting > 0 && !o.SLO.StartGiven() {
		opts.Start = float64(o.RateLimiting * o.Connections())
	}
	mk := func() (run.Spec, error) {
		spec, err := o.RunSpec("memtier", a.version, tg, seed, nil)
		spec.Log = a.Err
		return spec, err
	}
	spec, err := mk()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Err, "tairbench memtier → %s: %d threads × %d connections, %s, seed %d, capacity search for %s from %.0f requests/s\n",
		tg.Addr, o.Threads, o.Clients, spec.Config.Mode, seed, opts.SLO, opts.Start)
	return searchCapacity(ctx, a, opts, o.JSON, mk)
}

// writeHDRFiles writes each operation type's and the total latency
// distribution (.hgrm, microseconds) as PREFIX_TYPE.hgrm.
func writeHDRFiles(a *app, prefix string, run *result.Run, hist *hdr.Histogram) error {
	for _, o := range run.Operations {
		h, err := hdr.Decode([]byte(o.Histogram))
		if err != nil || o.Histogram == "" {
			continue
		}
		if err := writeFile(a, prefix+"_"+o.Name+".hgrm", func(w io.Writer) error { return report.HGRM(w, h) }); err != nil {
			return err
		}
	}
	return writeFile(a, prefix+"_TOTALS.hgrm", func(w io.Writer) error { return report.HGRM(w, hist) })
}

// memtierProgress prints memtier's per-second line on standard error.
func memtierProgress(w io.Writer, threads int, duration time.Duration, all int64) func(stats.Progress) {
	return func(p stats.Progress) {
		iv := p.Interval
		pct := ""
		if duration > 0 {
			pct = fmt.Sprintf("%.0f%%, ", 100*p.Elapsed.Seconds()/duration.Seconds())
		} else if all > 0 {
			pct = fmt.Sprintf("%.0f%%, ", 100*float64(p.TotalOps)/float64(all))
		}
		lat := "-"
		if iv.MeanUS != nil {
			lat = fmt.Sprintf("%.3f", *iv.MeanUS/1000)
		}
		fmt.Fprintf(w, "[RUN #1 %s%.0f secs] %d threads: %d ops, %.0f (avg: %.0f) ops/sec, %s (avg: %.3f) msec latency\n",
			pct, p.Elapsed.Seconds(), threads, p.TotalOps, iv.OpsPerSec, p.OpsPerSec, lat, p.MeanUS/1000)
	}
}
