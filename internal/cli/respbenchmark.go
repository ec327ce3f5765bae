package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/respbenchmark"
)

func newRespBenchmarkCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "resp-benchmark [OPTIONS] [COMMAND]",
		Short: "Run a resp-benchmark command line through tairbench's engine, with resp-benchmark's report",
		Long: `Takes resp-benchmark's command line as is (change only the program name):
its placeholders become a command template, its options an engine run. Prints
resp-benchmark's report, then tairbench's own line with the errors and
warnings resp-benchmark does not show.

` + respbenchmark.Usage,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			return runRespBenchmark(c.Context(), args, a)
		},
	}
}

func runRespBenchmark(ctx context.Context, args []string, a *app) error {
	o, err := respbenchmark.Parse(args)
	switch {
	case errors.Is(err, respbenchmark.ErrHelp):
		_, err = fmt.Fprintln(a.Out, respbenchmark.Usage)
		return err
	case errors.Is(err, respbenchmark.ErrVersion):
		_, err = fmt.Fprintf(a.Out, "tairbench %s, taking resp-benchmark 0.2.5's command line\n", a.version)
		return err
	case err != nil:
		return err
	}
	_, err = respbenchmark.Run(ctx, o, args, a.io())
	return err
}
