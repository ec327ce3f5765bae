package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/memtier"
)

func newMemtierCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "memtier [OPTIONS]",
		Short: "Run a memtier_benchmark command line through tairbench's engine, with memtier's table and JSON",
		Long: `Takes memtier_benchmark's command line as is (change only the program name),
runs it through tairbench's engine (SET and GET by --ratio, or --command
templates, each connection cycling through the types as memtier does) and
prints memtier's ALL STATS table, then tairbench's line with the errors,
warnings and the server's own count.

` + memtier.Usage(),
		DisableFlagParsing: true,
		RunE:               func(c *cobra.Command, args []string) error { return runMemtier(c.Context(), args, a) },
	}
}

func runMemtier(ctx context.Context, args []string, a *app) error {
	o, err := memtier.Parse(args)
	if errors.Is(err, memtier.ErrHelp) {
		_, err = fmt.Fprintln(a.Out, memtier.Usage())
		return err
	}
	if err != nil {
		return err
	}
	_, err = memtier.Run(ctx, o, args, a.io())
	return err
}
