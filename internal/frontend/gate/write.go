package gate

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	judge "github.com/tairbench/tairbench/internal/gate"
	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/internal/store"
	"github.com/tairbench/tairbench/pkg/result"
)

// head is the lines that name the run, its target and its baseline.
func (v *verdict) head() []string {
	r := v.Row
	lines := []string{
		fmt.Sprintf("run %d, started %s: %q against %s", r.ID, stamp(r), r.Workload, r.TargetName()),
		fmt.Sprintf("baseline %q: %d earlier runs of that workload against %s (%s)", v.BaselineSpec, len(v.Baseline),
			r.TargetKindName(), v.baselineIDs()),
	}
	if len(v.SetupDiffers) > 0 {
		lines = append(lines, "set-up differs from the baseline (the changes measure that too): "+strings.Join(v.SetupDiffers, "; "))
	}
	return lines
}

func stamp(r store.Row) string { return r.StartedAtText() }

func (v *verdict) baselineIDs() string {
	b := v.Baseline
	first, last := b[0], b[len(b)-1]
	if len(b) == 1 {
		return fmt.Sprintf("run %d, %s", first.ID, stamp(first))
	}
	return fmt.Sprintf("runs %d … %d, %s to %s", first.ID, last.ID, stamp(first), stamp(last))
}

// outcomeLine is the last line: the outcome and the exit status it gives.
func (v *verdict) outcomeLine() string {
	switch v.Outcome {
	case judge.Regression:
		return "gate: FAILED, a regression (exit 99)"
	case judge.Unstable:
		return fmt.Sprintf("gate: cannot tell, unstable (exit %d)", ExitUnstable)
	}
	return "gate: passed (exit 0)"
}

func writeText(w io.Writer, v *verdict) error {
	var b strings.Builder
	for _, l := range v.head() {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\trun\tbaseline median\tchange\tbaseline CV\trun CV\tp\tverdict\t")
	for _, x := range v.Verdicts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%+.1f %%\t%.1f %%\t%.1f %%\t%s\t%s: %s\t\n", x.Label, report.Figure(x.Value), report.Figure(x.Median), 100*x.Change,
			100*x.BaselineCV, 100*x.RunCV, pValue(x.P), x.Outcome, x.Reason)
	}
	_ = tw.Flush()
	b.WriteString("\n" + v.outcomeLine() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMarkdown(w io.Writer, v *verdict) error {
	var b strings.Builder
	b.WriteString("### tairbench gate\n\n")
	for _, l := range v.head() {
		b.WriteString("- " + mdEscape(l) + "\n")
	}
	b.WriteString("\n| metric | run | baseline median | change | baseline CV | run CV | p | verdict |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, x := range v.Verdicts {
		fmt.Fprintf(&b, "| %s | %s | %s | %+.1f %% | %.1f %% | %.1f %% | %s | **%s**: %s |\n", mdEscape(x.Label), report.Figure(x.Value),
			report.Figure(x.Median), 100*x.Change, 100*x.BaselineCV, 100*x.RunCV, pValue(x.P), x.Outcome, mdEscape(x.Reason))
	}
	b.WriteString("\n**" + v.outcomeLine() + "**\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// junit is the verdicts as threshold verdicts: one test case per metric,
// failed on a regression or an unstable verdict, the change in percent.
func (v *verdict) junit() []result.ThresholdVerdict {
	out := make([]result.ThresholdVerdict, len(v.Verdicts))
	for i, x := range v.Verdicts {
		out[i] = result.ThresholdVerdict{Threshold: fmt.Sprintf("%s of %s: change from the baseline's median", x.Label, v.Row.Workload),
			Observed: 100 * x.Change, Unit: "%",
			Pass: x.Outcome != judge.Regression && x.Outcome != judge.Unstable, Note: string(x.Outcome) + ": " + x.Reason}
	}
	return out
}

func pValue(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return fmt.Sprintf("%.2g", p)
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
