package whitepaper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/events"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/frontend/tmplrun"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// PersistenceOptions size the persistence suite.
type PersistenceOptions struct {
	Options
	// Fraction is the share of the measured capacity each case runs at
	// (default 0.5).
	Fraction float64
	// Keys values of ValueSize bytes are the dataset each server holds
	// before its case (DEBUG POPULATE): what a fork copies the page tables
	// of (default 1,000,000 of 256 bytes).
	Keys, ValueSize int
	// Duration is each case's (default 20 s); an event is at a third of it.
	Duration time.Duration
	// Connections is each case's (default 8).
	Connections int
	// IO starts the servers and logs.
	IO harness.IO
}

func (o *PersistenceOptions) defaults() {
	o.Options.defaults()
	if o.Fraction <= 0 || o.Fraction > 1 {
		o.Fraction = 0.5
	}
	if o.Keys <= 0 {
		o.Keys = 1_000_000
	}
	if o.ValueSize <= 0 {
		o.ValueSize = 256
	}
	if o.Duration <= 0 {
		o.Duration = 20 * time.Second
	}
	if o.Connections <= 0 {
		o.Connections = 8
	}
}

// persistenceCase is one configuration of the suite, with its event.
type persistenceCase struct {
	name  string
	args  []string
	event string
}

// persistenceCases are the suite's rows.
var persistenceCases = []persistenceCase{
	{"persistence off", []string{"--appendonly", "no"}, ""},
	{"AOF appendfsync everysec", []string{"--appendonly", "yes", "--appendfsync", "everysec"}, ""},
	{"AOF appendfsync always", []string{"--appendonly", "yes", "--appendfsync", "always"}, ""},
	{"BGSAVE in mid-run", []string{"--appendonly", "no"}, "bgsave"},
	{"AOF rewrite in mid-run", []string{"--appendonly", "yes", "--appendfsync", "everysec"}, "bgrewriteaof"},
}

// PersistenceClaims are what the whitepapers say of persistence, set
// beside the suite's figures (their words, summed up, not quoted).
var PersistenceClaims = []string{
	"persistent-memory whitepaper: every write persisted, with throughput and latency close to the community edition's",
	"ESSD whitepaper: data persisted on ESSD, and less memory held back for the forks open-source Redis makes",
}

// persistenceCommand is the suite's write.
const persistenceCommand = "SET key:__RAND__ __DATA__"

// Persistence runs the suite: the capacity of a redis-server with
// persistence off (closed loop), then each case open loop at Fraction of
// it on a server of its own, filled first, through its event.
func Persistence(ctx context.Context, o PersistenceOptions) (*result.WhitepaperSuite, error) {
	o.defaults()
	suite := &result.WhitepaperSuite{Header: result.NewHeader(result.SchemaWhitepaper, o.Version), Suite: "persistence",
		Source: "persistence: redis-server with persistence off, AOF everysec and always, and a BGSAVE and an AOF rewrite " +
			"in mid-run; " + strings.Join(PersistenceClaims, "; "),
		CommandLine: fmt.Sprintf("tairbench redis -p %d -d %s --rate %.0f%%-of-capacity -command '%s' --data-size %d -r %d",
			o.Connections, o.Duration, 100*o.Fraction, persistenceCommand, o.ValueSize, o.Keys),
		Scale: fmt.Sprintf("dataset %d keys of %d bytes (about %d MiB) filled by DEBUG POPULATE before each case; "+
			"target: redis-servers started on this machine, not Tair", o.Keys, o.ValueSize, o.Keys*(o.ValueSize+60)>>20)}
	capacity, err := o.capacity(ctx)
	if err != nil {
		return suite, fmt.Errorf("capacity: %w", err)
	}
	rate := capacity * o.Fraction
	fmt.Fprintf(o.Log, "whitepaper persistence: capacity %.0f/s closed loop; each case at %.0f/s\n", capacity, rate)
	for _, c := range persistenceCases {
		fmt.Fprintf(o.Log, "whitepaper persistence: %s\n", c.name)
		r, err := o.persistenceCase(ctx, c, rate)
		if err != nil {
			return suite, fmt.Errorf("%s: %w", c.name, err)
		}
		// No one target for the suite: each case's run names its server.
		lat := r.Totals.Latency
		if l, _ := r.Totals.Headline(); !l.Empty() {
			lat = l
		}
		suite.Cases = append(suite.Cases, result.WhitepaperCase{Name: c.name, Command: persistenceCommand, Run: r,
			Measured: result.WhitepaperFigures{QPS: r.Totals.OpsPerSec, Latency: []result.OpLatency{{Op: "SET", AvgUS: lat.Mean, P99US: lat.P99}}}})
		if ctx.Err() != nil {
			return suite, ctx.Err()
		}
	}
	return suite, nil
}

// server starts a redis-server with args, filled with the dataset.
func (o PersistenceOptions) server(ctx context.Context, args ...string) (endpoint.Target, func(), error) {
	// No rewrite of its own: the AOF case's event is the only one.
	addr, stop, err := target.StartRedisServerWith(o.IO, append([]string{"--enable-debug-command", "yes", "--auto-aof-rewrite-percentage", "0"}, args...)...)
	if err != nil {
		return endpoint.Target{}, nil, err
	}
	tg := endpoint.Target{Addr: addr, Protocol: 2, Timeout: 10 * time.Second}
	if _, err := driver.Exchange(ctx, tg, [][]string{{"DEBUG", "POPULATE", fmt.Sprint(o.Keys), "key", fmt.Sprint(o.ValueSize)}}); err != nil {
		stop()
		return tg, nil, fmt.Errorf("filling the dataset: %w", err)
	}
	// A server that starts with an AOF writes its base in the background:
	// the case starts when no fork runs.
	for deadline := time.Now().Add(2 * time.Minute); ; {
		a, err := driver.Exchange(ctx, tg, [][]string{{"INFO", "persistence"}})
		if err != nil {
			stop()
			return tg, nil, err
		}
		if strings.Contains(a[0].Text, "aof_rewrite_in_progress:0") && strings.Contains(a[0].Text, "rdb_bgsave_in_progress:0") &&
			!strings.Contains(a[0].Text, "aof_rewrite_scheduled:1") {
			break
		}
		if time.Now().After(deadline) {
			stop()
			return tg, nil, errors.New("the server's own rewrite did not end in 2 minutes")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return tg, stop, nil
}

// spec is the suite's write as a run against tg.
func (o PersistenceOptions) spec(tg endpoint.Target, cfg engine.Config) (run.Spec, error) {
	ts := driver.TemplateSpec{Template: persistenceCommand, ServerStats: !o.NoServerStats,
		Options: cmdtmpl.Options{DataSize: o.ValueSize}}
	ts.Options.Ranges[1] = cmdtmpl.Range{Max: uint64(o.Keys)}
	w, err := ts.Workload()
	if err != nil {
		return run.Spec{}, err
	}
	cfg.Workers, cfg.Seed = o.Connections, o.Seed
	spec := tmplrun.FromTemplate(ts, "", o.Version, tg, w, cfg)
	spec.Log = o.Log
	return spec, nil
}

// capacity is a closed-loop run's rate against a server with persistence off.
func (o PersistenceOptions) capacity(ctx context.Context) (float64, error) {
	tg, stop, err := o.server(ctx, "--appendonly", "no")
	if err != nil {
		return 0, err
	}
	defer stop()
	spec, err := o.spec(tg, engine.Config{Duration: 5 * time.Second, Warmup: time.Second})
	if err != nil {
		return 0, err
	}
	r, err := run.Run(ctx, spec)
	if err != nil {
		return 0, err
	}
	return r.Totals.RequestsPerSec, nil
}

// persistenceCase runs one case on a server of its own.
func (o PersistenceOptions) persistenceCase(ctx context.Context, c persistenceCase, rate float64) (*result.Run, error) {
	tg, stop, err := o.server(ctx, c.args...)
	if err != nil {
		return nil, err
	}
	defer stop()
	var plan *events.Plan
	if c.event != "" {
		e, err := events.Parse(fmt.Sprintf("at=%s %s", o.Duration/3, c.event))
		if err != nil {
			return nil, err
		}
		plan = &events.Plan{Events: []events.Event{e}}
	}
	ctx = run.WithEvents(ctx, plan)
	spec, err := o.spec(tg, engine.Config{Duration: o.Duration, Rate: rate})
	if err != nil {
		return nil, err
	}
	r, err := run.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	r.Name = c.name
	return r, nil
}

// writePersistence prints the suite's table: each case's latency outside
// and inside its event, the fork, and the throughput the event cost.
func writePersistence(b *strings.Builder, s *result.WhitepaperSuite) {
	fmt.Fprintf(b, "%-26s %9s %9s %11s %11s %-13s %8s %10s %13s %13s %9s %8s\n", "case", "asked/s", "QPS", "p99 ms",
		"p99.9 ms", "event", "fork ms", "COW MiB", "p99 in ms", "p99.9 in ms", "no reply", "lost %")
	for _, c := range s.Cases {
		r := c.Run
		if r == nil {
			continue
		}
		asked := 0.0
		if sc := r.Totals.Schedule; sc != nil {
			asked = sc.Rate
		}
		l, _ := r.Totals.Headline()
		row := fmt.Sprintf("%-26s %9.0f %9.0f %11.3f %11.3f", c.Name, asked, r.Totals.OpsPerSec, l.P99/1000, l.P999/1000)
		if ev := firstEvent(r); ev != nil && ev.Score == nil {
			row += fmt.Sprintf(" %-13s failed: %s", ev.Text, ev.Error)
		} else if ev != nil {
			sc := ev.Score
			row += fmt.Sprintf(" %-13s %8s %10s %13s %13s %8.0fms %7.1f%%", ev.Text, usAsMS(ev.Signals["latest_fork_usec"]),
				bytesAsMiB(cow(ev.Signals)), report.OptMS(sc.Inside.P99US), report.OptMS(sc.Inside.P999US), sc.NoReplyMS, lostShare(sc.Inside, asked))
			// Outside the event: its Before window.
			row = strings.Replace(row, fmt.Sprintf("%11.3f %11.3f", l.P99/1000, l.P999/1000),
				fmt.Sprintf("%11s %11s", report.OptMS(sc.Before.P99US), report.OptMS(sc.Before.P999US)), 1)
		}
		b.WriteString(strings.TrimRight(row, " ") + "\n")
	}
	b.WriteString("p99 and p99.9: from the intended start; with an event, of the quiet seconds before it (\"in\": from its issue to its recovery).\n" +
		"fork ms: latest_fork_usec; COW MiB: what the fork's child copied (rdb_/aof_last_cow_size); lost %: the event window's requests short of the rate.\n")
	for _, claim := range PersistenceClaims {
		fmt.Fprintf(b, "claim, %s\n", claim)
	}
	b.WriteString("!! these are redis-servers on this machine, not Tair: the claims are Tair's, the figures are open-source Redis's\n")
}

func firstEvent(r *result.Run) *result.Event {
	if r.Events == nil || len(r.Events.Events) == 0 {
		return nil
	}
	return &r.Events.Events[0]
}

func usAsMS(v string) string {
	var us float64
	if _, err := fmt.Sscan(v, &us); err != nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", us/1000)
}

func cow(signals map[string]string) string {
	if v, ok := signals["rdb_last_cow_size"]; ok {
		return v
	}
	return signals["aof_last_cow_size"]
}

func bytesAsMiB(v string) string {
	var n float64
	if _, err := fmt.Sscan(v, &n); err != nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", n/(1<<20))
}

// lostShare is how far the window's requests fell short of the rate.
func lostShare(w result.EventWindow, rate float64) float64 {
	want := rate * float64(w.ToS-w.FromS)
	if want <= 0 {
		return 0
	}
	return 100 * max(0, want-float64(w.Requests)) / want
}
