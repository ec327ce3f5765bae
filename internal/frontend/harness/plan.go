package harness

import (
	"fmt"
	"io"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
)

// Plan is what --dry-run prints: one line per run a command would make,
// and the totals. Nothing is sent.
type Plan struct {
	W        io.Writer
	runs     int
	seconds  float64
	commands int64
}

// NewPlan starts a dry run's plan on w.
func NewPlan(w io.Writer, what string) *Plan {
	fmt.Fprintf(w, "dry run of %s: nothing is sent\n", what)
	return &Plan{W: w}
}

// Run adds one run: its name, command, target and engine settings.
func (p *Plan) Run(name, command, target string, cfg engine.Config) {
	p.add(name, command, target, cfg, "until interrupted")
}

// RunToEnd adds one run that stops when its input ends (a whole file
// written), unless cfg bounds it.
func (p *Plan) RunToEnd(name, command, target string, cfg engine.Config) {
	p.add(name, command, target, cfg, "until its input ends")
}

// add adds one run; unbounded says when a run that cfg does not bound stops.
func (p *Plan) add(name, command, target string, cfg engine.Config, unbounded string) {
	p.runs++
	var stop string
	switch {
	case cfg.Duration > 0:
		stop = fmt.Sprintf("for %s", cfg.Duration+cfg.Warmup)
		if cfg.Warmup > 0 {
			stop += fmt.Sprintf(" (%s of warm-up)", cfg.Warmup)
		}
		p.seconds += (cfg.Duration + cfg.Warmup).Seconds()
	case cfg.Ops > 0:
		stop = fmt.Sprintf("until %d commands", cfg.Ops)
		p.commands += cfg.Ops
	case cfg.OpsPerWorker > 0:
		stop = fmt.Sprintf("until %d commands per connection", cfg.OpsPerWorker)
		p.commands += cfg.OpsPerWorker * int64(max(cfg.Workers, 1))
	default:
		stop = unbounded
	}
	loop := "closed loop"
	if cfg.Rate > 0 {
		loop = fmt.Sprintf("open loop at %.0f requests/s", cfg.Rate)
	}
	per := ""
	if cfg.OpsPerRequest > 1 {
		per = fmt.Sprintf(", %d commands a request", cfg.OpsPerRequest)
	}
	fmt.Fprintf(p.W, "  %-28s %s\n  %-28s → %s, %d connections%s, %s, %s\n", name, clip(command, 100), "", target, cfg.Workers, per, loop, stop)
}

// Load adds a data load that runs before the runs.
func (p *Plan) Load(name, desc string, commands int64) {
	p.commands += commands
	fmt.Fprintf(p.W, "  %-28s load: %s (%d commands)\n", name, desc, commands)
}

// Note adds a line.
func (p *Plan) Note(format string, a ...any) { fmt.Fprintf(p.W, "  "+format+"\n", a...) }

// Close prints the totals: the timed part exactly, the count-bounded part
// as commands, since its time is the server's.
func (p *Plan) Close() {
	runs := "runs"
	if p.runs == 1 {
		runs = "run"
	}
	fmt.Fprintf(p.W, "total: %d %s, %s of timed runs", p.runs, runs, time.Duration(p.seconds*float64(time.Second)).Round(time.Second))
	if p.commands > 0 {
		fmt.Fprintf(p.W, " plus %d commands bounded by count (at 100,000/s about %s)", p.commands,
			time.Duration(float64(p.commands)/1e5*float64(time.Second)).Round(time.Second))
	}
	fmt.Fprintln(p.W)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
