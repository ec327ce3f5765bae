package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/redisbenchmark"
)

func newRedisBenchmarkCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "redis-benchmark [OPTIONS] [COMMAND ARGS...]",
		Short: "Run a redis-benchmark command line through tairbench's engine, with redis-benchmark's report",
		Long: `Takes redis-benchmark's command line as is (change only the program name) and
prints redis-benchmark's report for each test, then tairbench's own line with
the errors and warnings redis-benchmark does not show.

` + redisbenchmark.Usage,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			return runRedisBenchmark(c.Context(), args, a)
		},
	}
}

func runRedisBenchmark(ctx context.Context, args []string, a *app) error {
	o, err := redisbenchmark.Parse(args, a.Err)
	if errors.Is(err, redisbenchmark.ErrHelp) {
		_, err = fmt.Fprintln(a.Out, redisbenchmark.Usage)
		return err
	}
	if err != nil {
		return err
	}
	_, err = redisbenchmark.Run(ctx, o, args, a.io())
	return err
}
