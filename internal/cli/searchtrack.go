package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/common"
	ftrack "github.com/tairbench/tairbench/internal/frontend/track"
)

// trackOptions are 'tairbench search run' flags.
type trackOptions struct {
	ftrack.Words
	target targetFlags
	list   bool
}

func newTrackRunCmd(a *app) *cobra.Command {
	o := &trackOptions{Words: ftrack.Words{Options: common.Defaults()}}
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
	o.target.registerLogin(fs)
	fs.StringVar(&o.TairAddr, "tair", "", "TairSearch address host:port")
	fs.StringVar(&o.Run.ES, "es", "", "Elasticsearch URL")
	fs.StringVar(&o.Run.ESAuth, "es-auth", "", `Elasticsearch basic auth "user:password"`)
	fs.StringVar(&o.Run.Chinese, "es-chinese", "jieba", "what jieba fields become on Elasticsearch when the track gives no Elasticsearch mapping: jieba (the Java port, as Tair cuts) or smartcn (Lucene's)")
	fs.StringVar(&o.Engines, "engines", "", "engines to run, in order: tairsearch, elasticsearch (default: tairsearch, and elasticsearch too with --es)")
	fs.Int64Var(&o.Run.Docs, "docs", 0, "documents of the corpus to use (0: the track's)")
	fs.DurationVar(&o.Run.Duration, "duration", 0, "measured time of every query task (default: the track's)")
	fs.Int64Var(&o.Run.Iterations, "iterations", 0, "measured queries of every query task, instead of a time (after its warm-up; writers beside it not counted)")
	fs.Float64Var(&o.Run.MaxDivergence, "max-divergence", -1, "stop before timing a task whose templates diverge more than this (0 to 1; -1: never)")
	fs.IntVar(&o.Run.Samples, "samples", 5, "parameter samples per template for the parity check")
	fs.StringArrayVar(&o.Run.Thresholds, "threshold", nil, "a bar on the track's relevance, [ENGINE:]METRIC@K>VALUE (recall@K, mrr@10, ndcg@10), e.g. ndcg@10>0.5; exit 99 when missed (repeatable)")
	fs.BoolVar(&o.Run.Quiet, "quiet", false, "no per-second progress lines")
	fs.BoolVar(&o.Run.AllowErrors, "allow-errors", false, "exit 0 even when requests failed")
	fs.BoolVar(&o.list, "list", false, "list the built-in tracks")
	o.Options.Register(fs, "")
	return cmd
}

func runTrack(ctx context.Context, o *trackOptions, name string, a *app) error {
	w := o.Words
	w.Server, w.Run.Track = o.target.Options, name
	return ftrack.Main(ctx, w, a.io())
}
