package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/wiki"
)

// wikiGenOptions are 'tairbench wiki gen' flags.
type wikiGenOptions struct {
	docs int64
	out  string
	seed uint64
}

func newWikiCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{Use: "wiki", Short: "Wikipedia abstract dumps: generate and inspect"}
	o := &wikiGenOptions{}
	gen := &cobra.Command{
		Use:   "gen",
		Short: "Generate an abstract dump of any size from the real samples' vocabulary, titles and lengths",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return runWikiGen(o, a) },
	}
	gen.Flags().Int64Var(&o.docs, "docs", 100000, "number of documents (5000000 for the whitepaper's scale)")
	gen.Flags().StringVar(&o.out, "out", "", "output file")
	gen.Flags().Uint64Var(&o.seed, "seed", 1, "seed (the same seed gives the same bytes)")
	count := &cobra.Command{
		Use:   "count FILE",
		Short: "Read a dump and report its documents (checks that it parses)",
		Args:  cobra.ExactArgs(1),
		RunE:  func(_ *cobra.Command, args []string) error { return runWikiCount(args[0], a) },
	}
	cmd.AddCommand(gen, count)
	return cmd
}

func runWikiGen(o *wikiGenOptions, a *app) error {
	if o.docs < 1 || o.out == "" {
		return errors.New("need --docs N (at least 1) and --out FILE")
	}
	f, err := os.Create(o.out)
	if err != nil {
		return err
	}
	if err := wiki.Generate(f, wiki.GenOptions{Docs: o.docs, Seed: o.seed}); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, err := os.Stat(o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Err, "wrote %d documents (%s) to %s\n", o.docs, report.MiB(st.Size()), o.out)
	return nil
}

func runWikiCount(path string, a *app) error {
	r, closer, err := wiki.Open(path)
	if err != nil {
		return err
	}
	defer closer.Close()
	var d wiki.Doc
	n := int64(0)
	for {
		if err := r.Next(&d); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		n++
	}
	fmt.Fprintf(a.Out, "%d documents\n", n)
	return nil
}
