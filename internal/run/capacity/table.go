package capacity

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/tairbench/tairbench/internal/report"
	"github.com/tairbench/tairbench/pkg/result"
)

// WriteSummary prints the steps and the answer.
func WriteSummary(w io.Writer, c *result.CapacitySearch) error {
	var b strings.Builder
	report.WriteWarnings(&b, c.Warnings)
	fmt.Fprintf(&b, "capacity search for %s: open-loop steps of %.3g s (after %.3g s of warm-up), precision %.0f%%\n",
		c.SLO, c.WindowS, c.WarmupS, 100*c.Precision)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\trate/s\tsent/s\tp50 ms\tp99 ms\tp99.9 ms\terrors\tclient lags\tSLO\t")
	row := func(name string, st result.CapacityStep) {
		t := st.Run.Totals
		l, _ := t.Headline()
		lags := int64(0)
		if t.Schedule != nil {
			lags = t.Schedule.ClientLags
		}
		state := "held"
		if !st.Held {
			state = "broke: " + strings.Join(st.Why, "; ")
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f%%\t%d\t%s\t\n", name, st.Rate, t.RequestsPerSec,
			l.P50/1000, l.P99/1000, l.P999/1000, 100*t.ErrorRate, lags, state)
	}
	for i, st := range c.Steps {
		row(fmt.Sprint(i+1), st)
	}
	for _, st := range report.Confirmations(c) {
		row("confirm", st)
	}
	_ = tw.Flush()
	b.WriteString("answer       " + report.CapacityAnswer(c))
	b.WriteString("\n")
	if c.Confirm != nil && !c.Unstable {
		fmt.Fprintf(&b, "noise        the confirming run moved the worst SLO figure by %.0f%% of its bound; two searches agree within the %.0f%% precision plus that\n",
			100*c.Noise, 100*c.Precision)
	}
	report.WriteWarnings(&b, c.Warnings)
	_, err := io.WriteString(w, b.String())
	return err
}
