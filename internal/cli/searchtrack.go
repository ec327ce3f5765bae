package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	ftrack "github.com/tairbench/tairbench/internal/frontend/track"
)

// trackOptions are 'tairbench search run' flags.
type trackOptions struct {
	target        targetFlags
	tairAddr      string
	esAddr        string
	esAuth        string
	engines       string
	docs          int64
	duration      time.Duration
	iterations    int64
	maxDivergence float64
	samples       int
	seed          uint64
	jsonPath      string
	quiet         bool
	allowErrors   bool
	list          bool
}

func newTrackRunCmd(a *app) *cobra.Command {
	o := &trackOptions{}
	cmd := &cobra.Command{
		Use:   "run TRACK",
		Short: "Run a search track (a built-in one or a track file) on TairSearch, Elasticsearch or both",
		Long: `Run a search track: its corpus is read once (bad lines are refused, naming the first),
each engine gets the track's index (Elasticsearch's body is proposed from the TairSearch mapping
unless the track gives one, and every analyzer it could not translate is named), then every task
of the schedule runs on each engine in turn. Before a query task is timed on two engines, each
template runs with sample parameters on both and the parity table says where their hits differ
and why. Built-in tracks: ` + strings.Join(ftrack.Builtin(), ", ") + `.`,
		Args: func(c *cobra.Command, args []string) error {
			if o.list {
				return nil
			}
			if len(args) != 1 {
				return fmt.Errorf("give one track: a built-in name (%s) or a track file", strings.Join(ftrack.Builtin(), ", "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if o.list {
				return ftrack.List(a.Out)
			}
			return runTrack(c.Context(), o, args[0], a)
		},
	}
	fs := cmd.Flags()
	o.target.Port = 6379
	fs.StringVar(&o.target.Auth, "auth", "", `TairSearch password or "user:password"`)
	o.target.registerConn(fs)
	fs.StringVar(&o.tairAddr, "tair", "", "TairSearch address host:port")
	fs.StringVar(&o.esAddr, "es", "", "Elasticsearch URL")
	fs.StringVar(&o.esAuth, "es-auth", "", `Elasticsearch basic auth "user:password"`)
	fs.StringVar(&o.engines, "engines", "", "engines to run, in order: tairsearch, elasticsearch (default: tairsearch, and elasticsearch too with --es)")
	fs.Int64Var(&o.docs, "docs", 0, "documents of the corpus to use (0: the track's)")
	fs.DurationVar(&o.duration, "duration", 0, "measured time of every query task (default: the track's)")
	fs.Int64Var(&o.iterations, "iterations", 0, "measured queries of every query task, instead of a time (after its warm-up; writers beside it not counted)")
	fs.Float64Var(&o.maxDivergence, "max-divergence", -1, "stop before timing a task whose templates diverge more than this (0 to 1; -1: never)")
	fs.IntVar(&o.samples, "samples", 5, "parameter samples per template for the parity check")
	fs.Uint64Var(&o.seed, "seed", 0, "base random seed (0: a new one)")
	fs.StringVar(&o.jsonPath, "json", "", "write the result as JSON to this file (- for stdout)")
	fs.BoolVar(&o.quiet, "quiet", false, "no per-second progress lines")
	fs.BoolVar(&o.allowErrors, "allow-errors", false, "exit 0 even when requests failed")
	fs.BoolVar(&o.list, "list", false, "list the built-in tracks")
	return cmd
}

func runTrack(ctx context.Context, o *trackOptions, name string, a *app) error {
	w := ftrack.Words{Server: o.target.Options, TairAddr: o.tairAddr, Engines: o.engines,
		Options: ftrack.Options{Track: name, ES: o.esAddr, ESAuth: o.esAuth, Docs: o.docs, MaxDivergence: o.maxDivergence,
			Samples: o.samples, Seed: o.seed, JSON: o.jsonPath, Quiet: o.quiet, AllowErrors: o.allowErrors,
			Duration: o.duration, Iterations: o.iterations}}
	return ftrack.Main(ctx, w, a.io())
}
