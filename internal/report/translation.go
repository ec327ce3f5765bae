package report

import (
	"fmt"

	"github.com/tairbench/tairbench/pkg/result"
)

// TranslationTable is a translated replay side by side: per original
// command and its translation, the commands, p50 and p99 from each
// command's intended start (the replay is open loop) on each structure;
// then the bitmaps' memory and how the answers agreed.
func TranslationTable(d *result.Translation) Table {
	t := Table{Title: fmt.Sprintf("%s, replayed as it was and translated (%s): latency from the intended start",
		d.Trace, d.Translate),
		Header: []string{"command", "commands", "p50 ms", "p99 ms", "translated", "commands", "p50 ms", "p99 ms"}}
	for _, p := range d.Pairs {
		a, b := opCells(d.Original, p.Original), opCells(d.Translated, p.Translated)
		if a[0] == "0" && b[0] == "0" {
			continue // the trace has none
		}
		row := append(append([]string{p.Original}, a...), p.Translated)
		t.Rows = append(t.Rows, append(row, b...))
	}
	for _, side := range []struct {
		what string
		r    *result.Run
	}{{"as it was", d.Original}, {"translated", d.Translated}} {
		if side.r != nil && side.r.Config.Target != nil {
			t.Notes = append(t.Notes, side.what+" on "+TargetLine(side.r.Config.Target))
		}
	}
	m := d.Memory
	if m.Keys > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("memory of the %d bitmap keys (MEMORY USAGE over %d of them, scaled): %s as Redis bitmaps, %s as TairRoaring",
			m.Keys, m.Sampled, bytesText(m.OriginalBytes), bytesText(m.TranslatedBytes)))
	}
	a := d.Agreement
	t.Notes = append(t.Notes, fmt.Sprintf("answers: %d of %d commands on %d sampled keys answered alike by both structures", a.Agreed, a.Commands, a.Keys))
	for _, x := range a.Disagreements {
		t.Notes = append(t.Notes, fmt.Sprintf("differs: %s → %s; %s → %s", x.Original, x.OriginalReply, x.Translated, x.TranslatedReply))
	}
	for _, u := range d.Unmapped {
		t.Notes = append(t.Notes, fmt.Sprintf("left out of both: %d × %s", u.Count, u.What))
	}
	return t
}

// opCells are an operation's commands, p50 and p99 from the intended start.
func opCells(r *result.Run, name string) []string {
	if r == nil {
		return []string{"—", "—", "—"}
	}
	for _, o := range r.Operations {
		if o.Name != name {
			continue
		}
		l := o.Latency
		if o.CorrectedLatency != nil {
			l = *o.CorrectedLatency
		}
		return []string{fmt.Sprint(o.Ops), fmt.Sprintf("%.3f", l.P50/1000), fmt.Sprintf("%.3f", l.P99/1000)}
	}
	return []string{"0", "—", "—"}
}

// bytesText is a byte count in the unit that reads best.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
