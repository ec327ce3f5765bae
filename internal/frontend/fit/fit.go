// Package fit is `tairbench fit`: a trace read into a workload file
// (internal/workload) through the fit's model (internal/fit), and the
// model printed for a person to read.
package fit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tairbench/tairbench/internal/fit"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/trace"
)

// Options are one fit: the trace to read and the workload file to write.
type Options struct {
	Trace, Out string
}

// Main fits the trace and writes the workload file; nothing is left at
// Out when the trace is bad.
func Main(o Options, hio harness.IO) error {
	switch {
	case o.Trace == "":
		return errors.New("name the trace to fit (tairbench fit TRACE -o workload.yaml)")
	case o.Out == "":
		return errors.New("-o FILE is required: the workload file to write")
	}
	f, err := os.Open(o.Trace)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Trace, err)
	}
	defer r.Close()
	ft := fit.New()
	var rec trace.Record
	n := 0
	for {
		err := r.Read(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", o.Trace, err)
		}
		if len(rec.Args) > 0 {
			ft.Add(&rec)
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("%s: the trace holds no command", o.Trace)
	}
	source := fmt.Sprintf("%s (%s)", filepath.Base(o.Trace), r.Meta().Source)
	w, m, err := ft.Workload(source)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Trace, err)
	}
	out, err := os.Create(o.Out)
	if err != nil {
		return err
	}
	err = w.Write(out, header(o.Trace))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(o.Out)
		return err
	}
	render(hio.Out, o, m)
	return nil
}

// header is the workload file's opening comment.
func header(path string) string {
	return "A tairbench workload, fitted by tairbench fit from " + filepath.Base(path) + ".\n" +
		"operations are what runs (tairbench redis --workload FILE --rate 2x): edit them freely.\n" +
		"Each key placeholder draws from its pattern's keys as the fit found them spread; each\n" +
		"__DATA__ is a value of the median size. fitted is what the fit found, for reading."
}

// render prints the model: the traffic, then each pattern.
func render(w io.Writer, o Options, m *fit.Model) {
	t := m.Traffic
	fmt.Fprintf(w, "%s: %d commands from %d connections over %.1f s: %.0f/s on average, %.0f at the busiest second\n",
		o.Trace, m.Commands, m.Connections, m.SpanS, t.MeanPerS, t.PeakPerS)
	fmt.Fprintf(w, "bursts: dispersion of the commands per 100 ms %.2f (1: Poisson); %.2f commands per burst of a connection; %.1f %% inside MULTI\n",
		t.Dispersion100ms, t.Pipeline, 100*t.MultiShare)
	fmt.Fprintf(w, "%-28s %7s %9s  %-34s %s\n", "pattern", "share", "keys", "popularity", "mix")
	for _, p := range m.Patterns {
		fmt.Fprintf(w, "%-28s %6.1f%% %9d  %-34s %s\n", p.Pattern, 100*p.Share, p.Keys, popularity(p.Popularity), mix(p))
		if q := p.ValueBytes; q != nil {
			fmt.Fprintf(w, "%-28s values p50 %.0f B, p90 %.0f B, p99 %.0f B, max %.0f B\n", "", q.P50, q.P90, q.P99, q.Max)
		}
		if q := p.TTLSeconds; q != nil {
			fmt.Fprintf(w, "%-28s TTLs p50 %.0f s, p90 %.0f s\n", "", q.P50, q.P90)
		}
	}
	if m.KeysCapped {
		fmt.Fprintf(w, "keys past the first %d were counted in their patterns, not followed one by one\n", fit.MaxKeys)
	}
	fmt.Fprintf(w, "workload written to %s\n", o.Out)
}

// popularity says how a pattern's keys are drawn.
func popularity(p fit.Popularity) string {
	switch p.Dist {
	case "zipf":
		return fmt.Sprintf("zipf %.2f (KS %.3f)", p.Zipf, p.KS)
	case "hot set":
		return fmt.Sprintf("hot set: top 1%% of keys %.0f%% (zipf %.2f, KS %.3f)", 100*p.Top1Pct, p.Zipf, p.KS)
	}
	return p.Dist
}

// mix is a pattern's commands with their shares.
func mix(p fit.PatternModel) string {
	var parts []string
	for _, c := range p.Mix[:min(4, len(p.Mix))] {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", c.Name, 100*float64(c.N)/float64(p.Commands)))
	}
	if len(p.Mix) > 4 {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}
