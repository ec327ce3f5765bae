// Package results is what tairbench does with finished results: merge
// the runs of several clients exactly, compare two results (runs, bitmap
// comparisons, track runs) with the differences beyond the noise marked
// and gates on them, and render any results as one HTML report.
package results

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/history"
	"github.com/tairbench/tairbench/internal/frontend/output"
	"github.com/tairbench/tairbench/internal/htmlreport"
	"github.com/tairbench/tairbench/internal/relevance"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/resultset"
	"github.com/tairbench/tairbench/internal/threshold"
	"github.com/tairbench/tairbench/pkg/result"
)

// ReadRun reads a result file with one run: tairbench.run, or a
// tairbench.compat document of one test (tairbench ycsb, memtier), or one
// task's run on one engine of a tairbench.track document, named as
// FILE#task/engine.
func ReadRun(path string) (*result.Run, error) {
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
	case *result.Translation:
		switch {
		case sel == "original" && d.Original != nil:
			return d.Original, nil
		case sel == "translated" && d.Translated != nil:
			return d.Translated, nil
		}
		return nil, fmt.Errorf("%s: a translated replay holds two runs: name one as %s#original or %s#translated", file, file, file)
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
			if err := resultset.WriteCompare(w, pathA, pathB, resultset.Setup(ea.Run, rb), rows, resultset.MeasureNote(ea.Run, rb)); err != nil {
				return err
			}
			n++
		}
	}
	if a.Relevance != nil && b.Relevance != nil {
		fmt.Fprintln(w)
		report.WriteTable(w, report.RelevanceCompare(a.Relevance, b.Relevance))
		n++
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

// MergeOptions are 'tairbench merge': the result files, where the merged
// result goes ("-" standard output), the gate and whether runs that did
// not overlap in time may merge.
type MergeOptions struct {
	Paths         []string
	Out           string
	Gate          output.Gate
	AllowDisjoint bool
}

// Merge merges the runs, prints the summary and the gate's verdicts and
// writes the merged result; a failed threshold exits 99.
func Merge(ctx context.Context, o MergeOptions, io harness.IO) error {
	ts, err := threshold.ParseAll(o.Gate.Thresholds)
	if err != nil {
		return err
	}
	if err := output.CheckPaths(o.Out, o.Gate.JUnit); err != nil {
		return err
	}
	var runs []*result.Run
	for _, p := range o.Paths {
		r, err := ReadRun(p)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	merged, err := resultset.MergeWith(runs, resultset.MergeOptions{AllowDisjoint: o.AllowDisjoint})
	if err != nil {
		return err
	}
	if len(ts) > 0 {
		merged.Thresholds = threshold.Evaluate(ts, merged)
	}
	summary := output.SummaryTo(io, o.Out)
	if err := report.Text(summary, merged, nil); err != nil {
		return err
	}
	threshold.Write(summary, merged.Thresholds)
	if err := output.Publish(ctx, io, o.Out, merged); err != nil {
		return err
	}
	if err := output.WriteJUnit(io, o.Gate.JUnit, "merge", merged.Thresholds); err != nil {
		return err
	}
	return output.ThresholdsFailed(merged.Thresholds)
}

// CompareOptions are 'tairbench compare A B': the two files, the
// --fail-on gates as written and their JUnit file.
type CompareOptions struct {
	A, B   string
	FailOn []string
	JUnit  string
}

// Compare prints B against A: two bitmap comparisons point by point, two
// track runs task by task (and their relevance), two search comparisons'
// relevance, or two runs; with the gates' verdicts (exit 99 when one
// fails). A relevance gate (ndcg@10<-0.05) judges tracks and search
// comparisons, the others runs.
func Compare(o CompareOptions, io harness.IO) error {
	var gates []resultset.FailOn
	var changes []relevance.Change
	for _, s := range o.FailOn {
		if relevance.IsChange(s) {
			c, err := relevance.ParseChange(s)
			if err != nil {
				return err
			}
			changes = append(changes, c)
			continue
		}
		f, err := resultset.ParseFailOn(s)
		if err != nil {
			return err
		}
		gates = append(gates, f)
	}
	if err := output.CheckPaths(o.JUnit); err != nil {
		return err
	}
	if da, db, ok := docsOf[*result.BitmapComparison](o.A, o.B); ok {
		if len(o.FailOn) > 0 {
			return errors.New("--fail-on judges two runs (tairbench.run), not bitmap comparisons")
		}
		return resultset.WriteBitmapCompare(io.Out, o.A, o.B, da, db)
	}
	if ta, tb, ok := docsOf[*result.TrackRun](o.A, o.B); ok {
		if len(gates) > 0 {
			return fmt.Errorf("--fail-on %s judges two runs: name one task's run of each track as FILE#TASK/ENGINE", gates[0].Source)
		}
		if err := compareTracks(io.Out, o.A, o.B, ta, tb); err != nil {
			return err
		}
		return judgeRelevance(o, io, changes, ta.Relevance, tb.Relevance)
	}
	if sa, sb, ok := docsOf[*result.SearchComparison](o.A, o.B); ok {
		if len(gates) > 0 {
			return fmt.Errorf("--fail-on %s judges two runs, not search comparisons", gates[0].Source)
		}
		if sa.Relevance == nil || sb.Relevance == nil {
			return errors.New("the two search comparisons do not both hold relevance to compare (search compare --known-items)")
		}
		report.WriteTable(io.Out, report.RelevanceCompare(sa.Relevance, sb.Relevance))
		return judgeRelevance(o, io, changes, sa.Relevance, sb.Relevance)
	}
	if len(changes) > 0 {
		return fmt.Errorf("--fail-on %s judges relevance: give two track results or two search comparisons", changes[0].Source)
	}
	ra, err := ReadRun(o.A)
	if err != nil {
		return err
	}
	rb, err := ReadRun(o.B)
	if err != nil {
		return err
	}
	if ra.Command != rb.Command {
		fmt.Fprintf(io.Err, "note: A ran %q, B ran %q\n", ra.Command, rb.Command)
	}
	rows := resultset.Compare(ra, rb)
	if err := resultset.WriteCompare(io.Out, o.A, o.B, resultset.Setup(ra, rb), rows, resultset.MeasureNote(ra, rb)); err != nil {
		return err
	}
	if ra.Events != nil || rb.Events != nil {
		fmt.Fprintln(io.Out)
		report.WriteTable(io.Out, report.EventsCompare(ra.Events, rb.Events))
	}
	if ra.Ledger != nil || rb.Ledger != nil {
		fmt.Fprintln(io.Out)
		report.WriteTable(io.Out, report.LedgerCompare(ra.Ledger, rb.Ledger))
	}
	var verdicts []result.ThresholdVerdict
	for _, g := range gates {
		verdicts = append(verdicts, g.Check(rows))
	}
	threshold.Write(io.Out, verdicts)
	if err := output.WriteJUnit(io, o.JUnit, "compare", verdicts); err != nil {
		return err
	}
	return output.ThresholdsFailed(verdicts)
}

// judgeRelevance checks the relevance gates on B against A, prints and
// writes their verdicts, and fails (exit 99) when one does.
func judgeRelevance(o CompareOptions, io harness.IO, changes []relevance.Change, a, b *result.TrackRelevance) error {
	if len(changes) == 0 {
		return nil
	}
	if a == nil || b == nil {
		return fmt.Errorf("--fail-on %s: the two results do not both judge relevance", changes[0].Source)
	}
	var verdicts []result.ThresholdVerdict
	for _, c := range changes {
		verdicts = append(verdicts, c.Check(a, b)...)
	}
	threshold.Write(io.Out, verdicts)
	if err := output.WriteJUnit(io, o.JUnit, "compare", verdicts); err != nil {
		return err
	}
	return output.ThresholdsFailed(verdicts)
}

// ReportOptions are a report's result files and output, and the trends
// from the results store it adds when Trend.Metric is set.
type ReportOptions struct {
	Paths []string
	Out   string
	Store history.Options
	Trend history.TrendOptions
}

// Report renders the result files as one HTML page to out ("-" standard
// output).
func Report(ctx context.Context, o ReportOptions, hio harness.IO) error {
	paths, out := o.Paths, o.Out
	switch {
	case len(paths) == 0 && o.Trend.Metric == "":
		return errors.New("give result files, or --store with --trend, to report on")
	case out == "":
		return errors.New("give the output file with -o report.html (- for stdout)")
	}
	var inputs []htmlreport.Input
	for _, p := range paths {
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
	var trends []report.Trend
	if o.Trend.Metric != "" {
		var err error
		if trends, err = history.Trends(ctx, o.Store, o.Trend); err != nil {
			return err
		}
	}
	if err := output.WriteFile(hio, out, func(w io.Writer) error { return htmlreport.Write(w, inputs, trends...) }); err != nil {
		return err
	}
	if out != "-" {
		fmt.Fprintf(hio.Err, "report written to %s\n", out)
	}
	return nil
}
