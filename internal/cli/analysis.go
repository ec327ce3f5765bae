package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/htmlreport"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/resultset"
	"github.com/tairbench/tairbench/internal/threshold"
	"github.com/tairbench/tairbench/pkg/result"
)

// readRun reads a result file with one run: tairbench.run, or a
// tairbench.compat document of one test (tairbench ycsb, memtier), or one
// task's run on one engine of a tairbench.track document, named as
// FILE#task/engine.
func readRun(path string) (*result.Run, error) {
	file, sel := path, ""
	if _, err := os.Stat(path); err != nil {
		if i := strings.LastIndexByte(path, '#'); i > 0 {
			file, sel = path[:i], path[i+1:]
		}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := result.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	switch d := doc.(type) {
	case *result.Run:
		return d, nil
	case *result.Compat:
		if len(d.Tests) == 1 && d.Tests[0].Run != nil {
			return d.Tests[0].Run, nil
		}
		return nil, fmt.Errorf("%s: %d tests in one %s document; merge and compare take one run per file", path, len(d.Tests), d.Tool)
	case *result.TrackRun:
		return trackRun(file, sel, d)
	}
	return nil, fmt.Errorf("%s: a %s document, not one run", path, doc.Head().Schema)
}

// trackRun picks one task's run on one engine ("task/engine") of a track result.
func trackRun(file, sel string, d *result.TrackRun) (*result.Run, error) {
	var names []string
	for _, t := range d.Tasks {
		for _, e := range t.Engines {
			if e.Run == nil {
				continue
			}
			if sel == t.Name+"/"+e.Engine {
				return e.Run, nil
			}
			names = append(names, t.Name+"/"+e.Engine)
		}
	}
	if sel == "" {
		return nil, fmt.Errorf("%s: a track result holds %d runs: name one as %s#TASK/ENGINE (%s)", file, len(names), file, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%s: no run %q in this track result (%s)", file, sel, strings.Join(names, ", "))
}

// compareTracks compares every task's run on every engine that both track
// results hold, B against A.
func compareTracks(w io.Writer, pathA, pathB string, a, b *result.TrackRun) error {
	if a.Track != b.Track {
		fmt.Fprintf(w, "note: A ran track %s, B ran track %s\n", a.Track, b.Track)
	}
	n := 0
	for _, ta := range a.Tasks {
		for _, ea := range ta.Engines {
			rb, err := trackRun(pathB, ta.Name+"/"+ea.Engine, b)
			if err != nil || ea.Run == nil {
				fmt.Fprintf(w, "\ntask %s on %s: only in A\n", ta.Name, ea.Engine)
				continue
			}
			fmt.Fprintf(w, "\ntask %s on %s\n", ta.Name, ea.Engine)
			rows := resultset.Compare(ea.Run, rb)
			if err := resultset.WriteCompare(w, pathA, pathB, resultset.Setup(ea.Run, rb), rows); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return errors.New("the two track results share no task run on the same engine")
	}
	return nil
}

// docsOf reads two result files of one document type T (ok is false
// unless both are).
func docsOf[T result.Document](pathA, pathB string) (a, b T, ok bool) {
	da, errA := result.ReadFile(pathA)
	db, errB := result.ReadFile(pathB)
	if errA != nil || errB != nil {
		return a, b, false
	}
	a, okA := da.(T)
	b, okB := db.(T)
	return a, b, okA && okB
}

func newMergeCmd(a *app) *cobra.Command {
	var out string
	var allowDisjoint bool
	var gate gateFlags
	cmd := &cobra.Command{
		Use:   "merge RESULT.json RESULT.json... -o TOTAL.json",
		Short: "Sum the results of clients that ran one workload at the same time",
		Long: `Merges tairbench.run results of several clients that ran the same workload at
the same time (for example with --shard i/N --start-at TIME): the HdrHistograms
merge exactly, counts and errors add up, the per-second series are aligned by
wall-clock second, and the seeds and hosts are listed. Results of different
workloads or schemas are refused.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			ts, err := threshold.ParseAll(gate.thresholds)
			if err != nil {
				return err
			}
			if err := harness.CheckPaths(out, gate.junit); err != nil {
				return err
			}
			var runs []*result.Run
			for _, p := range args {
				r, err := readRun(p)
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			merged, err := resultset.MergeWith(runs, resultset.MergeOptions{AllowDisjoint: allowDisjoint})
			if err != nil {
				return err
			}
			if len(ts) > 0 {
				merged.Thresholds = threshold.Evaluate(ts, merged)
			}
			summary := harness.SummaryTo(a.io(), out)
			if err := report.Text(summary, merged, nil); err != nil {
				return err
			}
			threshold.Write(summary, merged.Thresholds)
			if err := harness.WriteDocument(a.io(), out, merged); err != nil {
				return err
			}
			if err := harness.WriteJUnit(a.io(), gate.junit, "merge", merged.Thresholds); err != nil {
				return err
			}
			return harness.ThresholdsFailed(merged.Thresholds)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the merged result (tairbench.run/v2) to this file (- for stdout)")
	gate.register(cmd.Flags())
	cmd.Flags().BoolVar(&allowDisjoint, "allow-disjoint", false, "merge runs that did not all run at the same time (their sum is then no load the server saw)")
	return cmd
}

func newResultCompareCmd(a *app) *cobra.Command {
	var failOn []string
	var junit string
	cmd := &cobra.Command{
		Use:   "compare A.json B.json",
		Short: "Compare two results and mark the differences larger than the run-to-run noise",
		Long: `Prints QPS, p50, p99, p99.9, max latency, errors and client CPU per command of
two tairbench.run results, B against A, after both runs' set-ups (target,
command, mode, connections, pipeline, batch, loop, duration) with every
difference marked. QPS, p50 and p99 are also tested on their per-second
series (a block bootstrap, which treats a run's drift from second to second
as the noise it is): a difference is marked significant only when the
series differ (p < 0.01) by more than their own per-second variation, so
that "B is 3% faster" is not said when the runs cannot tell.

Two tairbench.bitmap results ('bitmap compare') are compared point by
point: memory and each operation's mean latency per structure, with B/A.

Two tairbench.track results ('search run') are compared task by task and
engine by engine; one task's run on one engine is named FILE#TASK/ENGINE
(so TairSearch and Elasticsearch of one track run compare as
run.json#queries/tairsearch run.json#queries/elasticsearch).`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if da, db, ok := docsOf[*result.BitmapComparison](args[0], args[1]); ok {
				if len(failOn) > 0 {
					return errors.New("--fail-on judges two runs (tairbench.run), not bitmap comparisons")
				}
				return resultset.WriteBitmapCompare(a.Out, args[0], args[1], da, db)
			}
			if ta, tb, ok := docsOf[*result.TrackRun](args[0], args[1]); ok && len(failOn) == 0 {
				return compareTracks(a.Out, args[0], args[1], ta, tb)
			}
			var gates []resultset.FailOn
			for _, s := range failOn {
				f, err := resultset.ParseFailOn(s)
				if err != nil {
					return err
				}
				gates = append(gates, f)
			}
			if err := harness.CheckPaths(junit); err != nil {
				return err
			}
			ra, err := readRun(args[0])
			if err != nil {
				return err
			}
			rb, err := readRun(args[1])
			if err != nil {
				return err
			}
			if ra.Command != rb.Command {
				fmt.Fprintf(a.Err, "note: A ran %q, B ran %q\n", ra.Command, rb.Command)
			}
			rows := resultset.Compare(ra, rb)
			if err := resultset.WriteCompare(a.Out, args[0], args[1], resultset.Setup(ra, rb), rows); err != nil {
				return err
			}
			var verdicts []result.ThresholdVerdict
			for _, g := range gates {
				verdicts = append(verdicts, g.Check(rows))
			}
			threshold.Write(a.Out, verdicts)
			if err := harness.WriteJUnit(a.io(), junit, "compare", verdicts); err != nil {
				return err
			}
			return harness.ThresholdsFailed(verdicts)
		},
	}
	cmd.Flags().StringArrayVar(&failOn, "fail-on", nil, "fail (exit 99) when B's change against A crosses this: p99>+10%, qps<-5% (repeatable)")
	cmd.Flags().StringVar(&junit, "junit", "", "write the --fail-on verdicts as JUnit XML to this file")
	return cmd
}

func newReportCmd(a *app) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report RESULT.json... -o report.html",
		Short: "Render results as one self-contained HTML page of charts and tables",
		Long: `Renders any tairbench results (runs, peer tools' runs, suites, capacity
searches, search comparisons) side by side in one HTML file with everything
inline: latency percentiles on a "nines" axis (from the intended start and
service time for open-loop runs), throughput, p50/p99 and errors per second,
the server's own count, a summary table, the suites' published and measured
figures with their ratio as a bar, and a capacity search's latency against
offered rate.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			var inputs []htmlreport.Input
			for _, p := range args {
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				doc, err := result.Read(f)
				f.Close()
				if err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
				inputs = append(inputs, htmlreport.Input{Name: filepath.Base(p), Doc: doc})
			}
			if out == "" {
				return errors.New("give the output file with -o report.html (- for stdout)")
			}
			if err := harness.WriteFile(a.io(), out, func(w io.Writer) error { return htmlreport.Write(w, inputs) }); err != nil {
				return err
			}
			if out != "-" {
				fmt.Fprintf(a.Err, "report written to %s\n", out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write (- for stdout)")
	return cmd
}
