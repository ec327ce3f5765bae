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
	// searches and searchSeconds are the capacity searches, and the most
	// time they take together.
	searches      int
	searchSeconds float64
	// unbounded counts the runs that last until interrupted; toEnd those
	// that last until their input ends, whose time the total cannot know.
	unbounded, toEnd int
	// loop, when set, describes the next run's loop (RunAtShare).
	loop string
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

// RunAtShare adds one open-loop run whose rate is a share of a capacity
// measured first (not known before).
func (p *Plan) RunAtShare(name, command, target string, cfg engine.Config, share float64) {
	p.loop = fmt.Sprintf("open loop at %.0f%% of the capacity measured first", 100*share)
	p.add(name, command, target, cfg, "until interrupted")
	p.loop = ""
}

// RunToEnd adds one run that stops when its input ends (a whole file
// written), unless cfg bounds it.
func (p *Plan) RunToEnd(name, command, target string, cfg engine.Config) {
	p.add(name, command, target, cfg, "until its input ends")
}

// Search adds one capacity search: its first step (cfg: one step's
// window and warm-up, at the first rate) and the most runs it makes.
func (p *Plan) Search(name, slo, command, target string, cfg engine.Config, most int) {
	step := cfg.Duration + cfg.Warmup
	p.searches++
	p.searchSeconds += float64(most) * step.Seconds()
	fmt.Fprintf(p.W, "  %-28s capacity search for %s: open-loop steps of %s from %.0f/s, at most %d runs (steps and confirming runs): at most %s\n",
		name, slo, step, cfg.Rate, most, time.Duration(most)*step)
	fmt.Fprintf(p.W, "  %-28s %s\n  %-28s → %s, %d connections, first step open loop at %.0f requests/s\n", "", clip(command, 100), "", target,
		cfg.Workers, cfg.Rate)
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
		if unbounded == "until interrupted" {
			p.unbounded++
		} else {
			p.toEnd++
		}
	}
	loop := "closed loop"
	switch {
	case p.loop != "":
		loop = p.loop
	case cfg.Rate > 0:
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
//
// With capacity searches the one total is a bound: how many steps a
// search takes depends on where the SLO breaks.
func (p *Plan) Close() {
	runs := "runs"
	if p.runs == 1 {
		runs = "run"
	}
	dur := func(s float64) time.Duration { return Round(time.Duration(s * float64(time.Second))) }
	if p.unbounded > 0 {
		fmt.Fprintf(p.W, "total: no bound: %d run(s) last until interrupted; the others: ", p.unbounded)
	}
	if p.unbounded == 0 {
		fmt.Fprint(p.W, "total: ")
	}
	if p.searches > 0 {
		searches := "capacity searches"
		if p.searches == 1 {
			searches = "capacity search"
		}
		fmt.Fprintf(p.W, "at most %s: %d %s of at most %s (how many steps each takes depends on where the SLO breaks)",
			dur(p.seconds+p.searchSeconds), p.searches, searches, dur(p.searchSeconds))
		if p.runs > 0 {
			fmt.Fprintf(p.W, ", %d timed %s of %s", p.runs, runs, dur(p.seconds))
		}
	} else {
		fmt.Fprintf(p.W, "about %s: %d %s, %s of timed runs", dur(p.seconds+float64(p.commands)/countedRate), p.runs, runs, dur(p.seconds))
	}
	if p.commands > 0 {
		fmt.Fprintf(p.W, ", plus %d commands bounded by count (about %s at %.0f/s)", p.commands, dur(float64(p.commands)/countedRate), countedRate)
	}
	if p.toEnd > 0 {
		fmt.Fprintf(p.W, ", plus %d run(s) until their input ends, not counted (their time is the server's)", p.toEnd)
	}
	fmt.Fprintln(p.W)
}

// Round is d as a plan or an estimate gives it: to 100 ms under 10 s, to
// the second above.
func Round(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// countedRate is the rate (commands/s) at which the total counts the
// commands bounded by count: loads and fixed-count runs, whose time is
// the server's. The embedded server loads about this fast on 2 cores.
const countedRate = 100_000.0

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
