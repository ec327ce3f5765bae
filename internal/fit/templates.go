package fit

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/commands"
	"github.com/tairbench/tairbench/internal/workload"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// runnable are the keyless commands a workload sends as they came; the
// others (MULTI, SELECT, CLIENT, …) belong to a connection's state, not
// to a mix, and are left to the fitted model.
var runnable = map[string]bool{"PING": true, "ECHO": true, "INFO": true, "DBSIZE": true, "TIME": true}

// Workload is the fit as a workload: per pattern and command, a template
// whose keys draw from the pattern's keys as the fit found them spread,
// its values of the median size, its other arguments as they mostly
// came (or drawn from their range); the model is kept beside it.
func (f *Fitter) Workload(source string) (*workload.Workload, *Model, error) {
	m := f.Model()
	w := &workload.Workload{Format: workload.Version, Source: source, Rate: m.Traffic.MeanPerS, Connections: m.Connections}
	for _, pm := range m.Patterns {
		p := f.patterns[pm.Pattern]
		ops := slices.Clone(p.opOrder)
		slices.SortStableFunc(ops, func(a, b *opAcc) int { return cmp.Compare(b.count, a.count) })
		for _, o := range ops {
			w.Operations = append(w.Operations, o.operation(p, pm.Popularity))
		}
	}
	for _, u := range m.Unkeyed {
		if runnable[u.Name] {
			w.Operations = append(w.Operations, workload.Operation{Name: u.Name, Command: u.Name, Weight: u.N})
		}
	}
	notes, err := workload.NotesOf(m)
	if err != nil {
		return nil, nil, fmt.Errorf("fit: %w", err)
	}
	w.Fitted = notes
	return w, m, w.Check()
}

// operation is one command of a pattern as a template.
func (o *opAcc) operation(p *patternAcc, pop Popularity) workload.Operation {
	op := workload.Operation{Name: o.name + " " + p.name, Weight: o.count, Ranges: map[int]workload.Range{}}
	words := []string{o.name}
	keyAt := commands.KeyPositions(o.name, o.n)
	keyTmpl, hasID := keyTemplate(p.name)
	if hasID {
		op.Ranges[1] = keyRange(p, pop)
	}
	next := 2 // the next free range
	for i := 1; i < o.n; i++ {
		a := &o.args[i]
		switch {
		case i == o.key:
			words = append(words, keyTmpl)
		case slices.Contains(keyAt, i) && a.many:
			words = append(words, strings.ReplaceAll(keyTmpl, "{k}", "{k"+strconv.Itoa(i)+"}"))
		case a.value || a.many && !a.numeric:
			words = append(words, "__DATA__")
			if q := a.sizes.quantiles(); q != nil {
				op.DataSize = max(op.DataSize, int(q.P50))
			}
		case a.many && next <= cmdtmpl.MaxRanges:
			words = append(words, "__RAND"+strconv.Itoa(next)+"__")
			op.Ranges[next] = workload.Range{Size: uint64(a.hi-a.lo) + 1, Offset: uint64(max(a.lo, 0))}
			next++
		default:
			words = append(words, cmdtmpl.Quote(a.mode()))
		}
	}
	op.Command = strings.Join(words, " ")
	if len(op.Ranges) == 0 {
		op.Ranges = nil
	}
	return op
}

// keyTemplate is a pattern as a template: each id __RAND{k}__ (range
// 1; one value for all of them), and whether it has one.
func keyTemplate(pattern string) (string, bool) {
	r := strings.NewReplacer("{id}", "__RAND{k}__", "{hex}", "__RAND{k}__", "{uuid}", "__RAND{k}__")
	t := r.Replace(pattern)
	return cmdtmpl.Quote(t), t != pattern
}

// keyRange is how a pattern's keys are drawn: its ids' span in
// sequence, or as many keys as it had, spread as the fit found.
func keyRange(p *patternAcc, pop Popularity) workload.Range {
	r := workload.Range{Size: uint64(max(p.keys, 1)), Offset: uint64(max(p.minID, 0))}
	switch pop.Dist {
	case "sequential":
		r.Dist, r.Size = "seq", uint64(p.maxID-max(p.minID, 0))+1
	case "zipf", "hot set":
		switch e := pop.Zipf; {
		case e < 0.01:
		case e < 0.999:
			r.Dist, r.Theta = "zipf", e
		case e <= 1.001:
			r.Dist, r.Theta = "zipf", 0.999
		default:
			r.Dist, r.Theta = "power", math.Min(e, 100)
		}
	}
	return r
}

// mode is an argument's most common value.
func (a *argAcc) mode() string {
	best, n := "", int64(-1)
	for v, c := range a.vals {
		if c > n || c == n && v < best {
			best, n = v, c
		}
	}
	return best
}
