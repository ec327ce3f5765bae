package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/ycsb"
)

func newYCSBCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "ycsb load|run redis [-s] -P workloads/workloadX [-p name=value]... [-threads N] [-target N]",
		Short: "Run a YCSB command line (the Redis binding with redis.command_group) through tairbench's engine",
		Long: `Takes YCSB's command line after "ycsb" as is: workloads/workloada … workloadf are
YCSB's core workloads, built in (a properties file at that path is read
instead), -p properties override them. Keys, operation mix and request
distributions are YCSB's; redis.command_group picks the data structure
(string, hash, list, set, zset) as the whitepaper's Redis binding does.
Prints YCSB's report, then tairbench's line with errors and warnings.
tairbench's own options: --embedded, --json FILE, --seed N, --no-server-stats,
--timeout D (replaces redis.timeout), --dry-run, --metrics-addr HOST:PORT,
--metrics-linger S.`,
		DisableFlagParsing: true,
		RunE:               func(c *cobra.Command, args []string) error { return runYCSB(c.Context(), args, a) },
	}
}

func runYCSB(ctx context.Context, args []string, a *app) error {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
		_, err := fmt.Fprintln(a.Out, "usage: tairbench ycsb load|run redis [-s] -P workloads/workloadX [-p name=value]... [-threads N] [-target N]")
		return err
	}
	c, err := ycsb.Parse(args)
	if err != nil {
		return err
	}
	_, err = ycsb.Run(ctx, c, args, a.io())
	return err
}
