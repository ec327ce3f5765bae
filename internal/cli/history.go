package cli

import (
	"fmt"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/history"
)

// registerStore binds --store (default $TAIRBENCH_STORE) and --tag.
func registerStore(fs *pflag.FlagSet, o *history.Options) {
	fs.StringVar(&o.Store, "store", os.Getenv("TAIRBENCH_STORE"), "the results store (an SQLite file; default $TAIRBENCH_STORE)")
	fs.StringArrayVar(&o.Tags, "tag", nil, "key=value: only runs with this tag (repeatable); on import, the tag each file is stored with")
}

func newHistoryCmd(a *app) *cobra.Command {
	var o history.Options
	t := history.TrendOptions{Window: 7}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List the results kept in a results store (--store), filtered",
		Long: `Lists the results a results store keeps (every command's --store, or
'tairbench store import'), oldest first: when each started, its kind, target
(named "embedded server, not Tair" when it was ours), workload, tags, and for
a run its rate and headline latency, named.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if t.Metric != "" {
				return history.WriteTrends(c.Context(), o, t, a.io())
			}
			return history.History(c.Context(), o, a.io())
		},
	}
	fs := cmd.Flags()
	registerStore(fs, &o)
	fs.StringVar(&o.Since, "since", "", "only runs started since: a span back from now (30d, 12h) or a date (2026-11-01)")
	fs.StringArrayVar(&o.Where, "where", nil, "only runs where KEY=VALUE (tag.NAME, target.kind, target.version, target, kind, workload, tool_version; repeatable)")
	fs.StringVar(&o.Kind, "kind", "", "only results of this kind (run, bitmap, roaring, track, vector, ...)")
	fs.StringVar(&o.Workload, "workload", "", "only runs whose command contains this")
	fs.IntVar(&o.Limit, "limit", 0, "only the most recent N (0: all)")
	fs.StringVar(&t.Metric, "trend", "", "instead of the list, follow a figure (qps, p50, p99, or one operation's: GET:p99) per workload, change points marked")
	fs.IntVar(&t.Window, "window", t.Window, "with --trend: judge each run against this many runs before it")
	return cmd
}

func newStoreCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Import result files into a results store, or export one back",
	}
	var o history.Options
	imp := &cobra.Command{
		Use:   "import RESULT.json...",
		Short: "Keep result files in the store, each in one transaction (every file is read first)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return history.Import(c.Context(), o, args, a.io())
		},
	}
	registerStore(imp.Flags(), &o)
	var out string
	var eo history.Options
	exp := &cobra.Command{
		Use:   "export ID -o FILE",
		Short: "Write a stored result back as the file it was",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return fmt.Errorf("run id %q: want a number from 'tairbench history'", args[0])
			}
			return history.Export(c.Context(), eo, id, out, a.io())
		},
	}
	exp.Flags().StringVar(&eo.Store, "store", os.Getenv("TAIRBENCH_STORE"), "the results store (an SQLite file; default $TAIRBENCH_STORE)")
	exp.Flags().StringVarP(&out, "output", "o", "-", "the file to write (- for stdout)")
	cmd.AddCommand(imp, exp)
	return cmd
}
