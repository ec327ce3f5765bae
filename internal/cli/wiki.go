package cli

import (
	"github.com/spf13/cobra"

	fwiki "github.com/tairbench/tairbench/internal/frontend/wiki"
)

// wikiGenOptions are 'tairbench wiki gen' flags.

func newWikiCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "wiki", Short: "Wikipedia abstract dumps: generate and inspect"}
	o := &fwiki.GenOptions{}
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate an abstract dump of any size from the real samples' vocabulary, titles and lengths",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return fwiki.Gen(*o, a.io()) },
	}
	gen.Flags().Int64Var(&o.Docs, "docs", 100000, "number of documents (5000000 for the whitepaper's scale)")
	gen.Flags().StringVar(&o.Out, "out", "", "output file")
	gen.Flags().Uint64Var(&o.Seed, "seed", 1, "seed (the same seed gives the same bytes)")
	count := &cobra.Command{
		Use:   "count FILE",
		Short: "Read a dump and report its documents (checks that it parses)",
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { return fwiki.Count(args[0], a.io()) },
	}
	cmd.AddCommand(gen, count)
	return cmd
}
