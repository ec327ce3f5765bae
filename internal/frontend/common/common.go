// Package common holds tairbench's own options, which every dialect
// takes besides its tool's (memtier_benchmark's, redis-benchmark's,
// YCSB's): declared once here for pflag and parsed once, by the same
// declarations, for the dialects that carry them among their own words.
package common

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/frontend/target"
)

// Options are tairbench's own options.
type Options struct {
	// Embedded starts the embedded server in this process and targets it.
	Embedded bool
	// JSON is tairbench's own result file ("-" standard output).
	JSON string
	// Seed is the base random seed (0: a new one, recorded).
	Seed uint64
	// NoServerStats turns the once-a-second INFO sampling off.
	NoServerStats bool
	// DryRun prints what would run and sends nothing.
	DryRun bool
	// Timeout bounds connecting and each request (0: the dialect's own).
	Timeout time.Duration
	// Sinks are the live outputs (the metrics endpoint).
	output.Sinks
	// Sentinels and MasterName make the target the primary the Sentinels
	// name, asked again at each connection made after a loss.
	Sentinels  []string
	MasterName string
	// Retry sends a request again, at most this many times, when its
	// connection failed or the server was not the primary (0: never).
	Retry int
}

// Target is t, a RESP target as the user named it, with these options'
// --embedded and --timeout.
func (o Options) Target(t target.Options) target.Options {
	t.Embedded, t.Timeout = o.Embedded, o.Timeout
	t.Sentinels, t.MasterName, t.Retry = o.Sentinels, o.MasterName, o.Retry
	return t
}

// Follow is t following the Sentinels' primary, when --sentinel is given:
// for the dialects that build their endpoint from their own words.
func (o Options) Follow(t endpoint.Target) endpoint.Target {
	t.Sentinels, t.MasterName, t.Retry = o.Sentinels, o.MasterName, o.Retry
	return t
}

// Defaults are the options before any is given.
func Defaults() Options {
	return Options{Timeout: 10 * time.Second, Sinks: output.Sinks{MetricsLinger: 30 * time.Second, Store: os.Getenv("TAIRBENCH_STORE")}}
}

// Register declares the options on fs, each help line after prefix
// ("tairbench: " where they share a list with a tool's own).
func (o *Options) Register(fs *pflag.FlagSet, prefix string) {
	fs.BoolVar(&o.Embedded, "embedded", o.Embedded, prefix+"start the embedded server and target it")
	fs.StringVar(&o.JSON, "json", o.JSON, prefix+"write tairbench's own result (JSON) to this file (- for stdout)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, prefix+"base random seed (0: a new one, recorded in the result)")
	fs.BoolVar(&o.NoServerStats, "no-server-stats", o.NoServerStats, prefix+"do not sample the server's own statistics (INFO; Elasticsearch's stats) once a second")
	fs.BoolVar(&o.DryRun, "dry-run", o.DryRun, prefix+"print what would run and send nothing")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, prefix+"connect and per-request timeout")
	fs.StringVar(&o.MetricsAddr, "metrics-addr", o.MetricsAddr, prefix+"serve the runs' metrics (Prometheus) on HOST:PORT while they run")
	fs.Var(flagval.Seconds{D: &o.MetricsLinger}, "metrics-linger", prefix+"after the runs, wait at most this long for a last scrape of --metrics-addr")
	fs.StringVar(&o.Store, "store", o.Store, prefix+"keep the result in this results store (an SQLite file; default $TAIRBENCH_STORE)")
	fs.StringArrayVar(&o.Tags, "tag", o.Tags, prefix+"a key=value tag stored with the result (repeatable)")
	fs.StringArrayVar(&o.Sentinels, "sentinel", o.Sentinels, prefix+"a Sentinel (HOST:PORT, repeatable): the target is the primary it names --master-name, asked again after each lost connection")
	fs.StringVar(&o.MasterName, "master-name", o.MasterName, prefix+"the name the Sentinels monitor the primary under (with --sentinel)")
	fs.IntVar(&o.Retry, "retry", o.Retry, prefix+"send a request again, at most N times, when its connection failed or the server was not the primary (READONLY, LOADING, TRYAGAIN, CLUSTERDOWN); retried commands are counted apart (default 0: never, nothing hidden)")
	fs.StringArrayVar(&o.Events.Specs, "event", o.Events.Specs, prefix+"an event inside the run, as 'at=20s bgsave' (repeatable; docs/events.md lists them)")
	fs.StringVar(&o.Events.File, "events", o.Events.File, prefix+"a scenario file (YAML) of events inside the run")
	fs.IntVar(&o.Events.Cycles, "cycles", o.Events.Cycles, prefix+"repeat the events this many times, --every apart")
	fs.Var(flagval.Seconds{D: &o.Events.Every}, "every", prefix+"the period of repeated events (--cycles)")
	fs.StringVar(&o.Events.SLO, "event-slo", o.Events.SLO, prefix+"what a second must meet to count as recovered from an event, as p99<2ms,errors<0.1% (default: p99 within 2x the seconds before, no error)")
	fs.IntVar(&o.Events.RecoverSeconds, "recover-seconds", o.Events.RecoverSeconds, prefix+"seconds in a row inside --event-slo that make a recovery (default 3)")
}

// Take reads one of the options at args[i] (--name, --name=value, or
// --name value): it returns how many words it used, 0 when args[i] is
// none of them. The value is parsed by the same declarations Register
// makes.
func (o *Options) Take(args []string, i int) (int, error) {
	name, value, hasValue := strings.Cut(strings.TrimPrefix(args[i], "--"), "=")
	if !strings.HasPrefix(args[i], "--") {
		return 0, nil
	}
	f := o.flags().Lookup(name)
	if f == nil {
		return 0, nil
	}
	used := 1
	switch {
	case hasValue:
	case f.Value.Type() == "bool":
		value = "true"
	case i+1 < len(args):
		value, used = args[i+1], 2
	default:
		return 1, fmt.Errorf("--%s needs a value", name)
	}
	if err := f.Value.Set(value); err != nil {
		return used, fmt.Errorf("--%s %q: %w", name, value, err)
	}
	return used, nil
}

// Set sets the option name (without dashes) to value, parsed by the same
// declarations Register makes: for a dialect that carries the options as
// its own settings (YCSB's -p tairbench.NAME=VALUE).
func (o *Options) Set(name, value string) error {
	f := o.flags().Lookup(name)
	if f == nil {
		var names []string
		o.flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		return fmt.Errorf("%q is not one of tairbench's own options (%s)", name, strings.Join(names, ", "))
	}
	if err := f.Value.Set(value); err != nil {
		return fmt.Errorf("%s %q: %w", name, value, err)
	}
	return nil
}

// flags are the options declared on a flag set of their own.
func (o *Options) flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("tairbench", pflag.ContinueOnError)
	fs.SortFlags = false
	o.Register(fs, "")
	return fs
}
