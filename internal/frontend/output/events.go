package output

import (
	"fmt"
	"os"
	"time"

	"github.com/tairbench/tairbench/internal/events"
	"github.com/tairbench/tairbench/internal/run/capacity"
)

// Events are the events every run of a command goes through, as the
// user gave them (--event, --events, --cycles, --every, --event-slo).
type Events struct {
	// Specs are events as "at=20s bgsave"; File a scenario file (YAML).
	Specs []string
	File  string
	// Cycles repeats them, Every apart (a file's own cycles and period
	// give way to these when set).
	Cycles int
	Every  time.Duration
	// SLO is what a second must meet to count as recovered ("" the
	// default: within twice the p99 before the event, no error).
	SLO string
	// RecoverSeconds is how many such seconds in a row recover (0: 3).
	RecoverSeconds int
}

// Plan reads the events into a plan (nil when none was given).
func (e Events) Plan() (*events.Plan, error) {
	plan := &events.Plan{}
	if e.File != "" {
		data, err := os.ReadFile(e.File)
		if err != nil {
			return nil, fmt.Errorf("--events: %w", err)
		}
		if plan, err = events.ParseScenario(data); err != nil {
			return nil, fmt.Errorf("--events %s: %w", e.File, err)
		}
	}
	for _, s := range e.Specs {
		ev, err := events.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("--event: %w", err)
		}
		plan.Events = append(plan.Events, ev)
	}
	if plan.Empty() {
		if e.Cycles != 0 || e.Every != 0 || e.SLO != "" {
			return nil, fmt.Errorf("--cycles, --every and --event-slo need events (--event or --events)")
		}
		return nil, nil
	}
	if e.Cycles != 0 {
		plan.Cycles = e.Cycles
	}
	if e.Every != 0 {
		plan.Every = e.Every
	}
	if e.Cycles < 0 || e.Every < 0 || e.RecoverSeconds < 0 {
		return nil, fmt.Errorf("--cycles, --every and --recover-seconds cannot be negative")
	}
	plan.RecoverSeconds = e.RecoverSeconds
	if e.SLO != "" {
		slo, err := capacity.ParseSLO(e.SLO)
		if err != nil {
			return nil, fmt.Errorf("--event-slo: %w", err)
		}
		plan.SLO, plan.SLOText = slo.HoldsIn, slo.String()
	}
	return plan, nil
}
