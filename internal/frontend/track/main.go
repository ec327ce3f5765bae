package track

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	tk "github.com/tairbench/tairbench/internal/track"
)

// Builtin names the built-in tracks.
func Builtin() []string { return tk.Builtin() }

// List writes each built-in track's name and description.
func List(w io.Writer) error {
	for _, n := range tk.Builtin() {
		t, err := tk.Load(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-14s %s\n", n, t.Description)
	}
	return nil
}

// Words are 'tairbench search run' as the user gave it: tairbench's own
// options (common.Options), and Run without the engines, TairSearch's
// target, the seed, result file and server statistics, which these give.
type Words struct {
	common.Options
	Run Options
	// Server is TairSearch's login and TLS; TairAddr --tair.
	Server   target.Options
	TairAddr string
	// Engines is --engines, a comma list ("" from --es).
	Engines string
}

// Main checks the words, loads the track (refused before any server
// starts), resolves TairSearch's target and runs the track.
func Main(ctx context.Context, w Words, io harness.IO) error {
	ro := w.Run
	ro.Seed, ro.JSON, ro.NoServerStats = w.Seed, w.JSON, w.NoServerStats
	w.Server = w.Target(w.Server)
	if ro.MaxDivergence > 1 {
		return fmt.Errorf("--max-divergence is a share, 0 to 1 (or -1 for never), not %g", ro.MaxDivergence)
	}
	if ro.Duration < 0 || ro.Docs < 0 || ro.Iterations < 0 {
		return fmt.Errorf("--duration, --iterations and --docs must not be negative")
	}
	if ro.Duration > 0 && ro.Iterations > 0 {
		return fmt.Errorf("give --duration or --iterations, not both")
	}
	var err error
	if ro.Engines, err = engines.ChooseSearch(w.Engines, ro.ES); err != nil {
		return err
	}
	tr, err := tk.Load(ro.Track) // refused before any server starts
	if err != nil {
		return err
	}
	if _, err := qualityThresholds(ro.Thresholds, tr); err != nil {
		return err
	}
	resp := slices.ContainsFunc(ro.Engines, func(n string) bool { e, _ := engines.Search(n); return e.Reach == catalog.RESP })
	if resp && !w.Embedded && w.TairAddr == "" {
		return fmt.Errorf("TairSearch's address is required (--tair ADDR), or --embedded")
	}
	if w.DryRun {
		return DryRun(ro, w.targets(ro), io)
	}
	if resp {
		s := w.Server
		if w.TairAddr != "" {
			s.Host = w.TairAddr
		}
		tg, stop, err := target.Resolve(io, s)
		if err != nil {
			return err
		}
		defer stop()
		ro.Tair = tg
	} else {
		ro.Tair.Timeout = w.Server.Timeout
	}
	sinks := w.Sinks
	sinks.Progress = !ro.Quiet
	return sinks.Run(ctx, io, func(ctx context.Context) error {
		_, err := Run(ctx, ro, io)
		return err
	})
}

// targets says where each engine of a dry run is.
func (w Words) targets(o Options) map[string]string {
	out := map[string]string{}
	for _, n := range o.Engines {
		e, _ := engines.Search(n)
		switch {
		case e.Reach == catalog.HTTP:
			out[n] = o.ES
		default:
			out[n] = target.Dry(w.TairAddr, w.Embedded)
		}
	}
	return out
}
