package vector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/engines"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
)

// describe names the data as the words give it, without reading it.
func (d DataSpec) describe() string {
	switch {
	case d.Data == "clustered":
		return fmt.Sprintf("clustered: %d base + %d query vectors, %d dims, %d centres, seed %d, %s", d.N, d.NQ, d.Dims, d.Centres, d.Seed, d.Metric)
	case filepath.Ext(d.Data) == "":
		return fmt.Sprintf("%s, prepared in %s (%s)", d.Data, d.Dir, present(filepath.Join(d.Dir, d.Data)))
	}
	q := "its last rows"
	if d.Queries != "" {
		q = d.Queries
	}
	return fmt.Sprintf("%s (%s), queries from %s", d.Data, present(d.Data), q)
}

// present says whether path is there.
func present(path string) string {
	if _, err := os.Stat(path); err != nil {
		return "absent: it would be refused"
	}
	return "present"
}

// planned is one data set of a dry run: what it is, its index and
// whether it would run.
type planned struct {
	desc, algorithm string
	absent          bool
}

// suiteData names each case a suite would run, and whether its data is there.
func (w SuiteWords) suiteData(names []string) []planned {
	var out []planned
	for _, c := range Cases {
		if len(names) > 0 && !contains(names, c.Name) {
			continue
		}
		p := planned{desc: fmt.Sprintf("%s: %s %s, %s, in %s", c.Name, c.Algorithm, c.Metric, c.Note, w.Data.Dir), algorithm: c.Algorithm}
		if _, err := os.Stat(filepath.Join(w.Data.Dir, c.Name)); err != nil {
			p.absent = true
			p.desc += " (absent: named and skipped)"
		}
		out = append(out, p)
	}
	return out
}

// planSweep plans one sweep's runs (suffix names a filtered one).
func (w Words) planSweep(p *harness.Plan, engineName, param, where string, sweep []int, suffix, what string) {
	for _, v := range sweep {
		name := fmt.Sprintf("%s %s=%d", engineName, param, v)
		if v == 0 {
			name = engineName + " exact"
		}
		name += suffix
		cfg := engine.Config{Workers: w.Connections, Duration: w.Duration, Warmup: w.Warmup}
		p.Run(name, what, where, cfg)
		if w.Rate > 0 {
			cfg.Rate = w.Rate
			p.Run(name, "the same, open loop", where, cfg)
		}
	}
}

// dryRun prints, for each data set, every engine's insert and sweep as
// they would run, and sends nothing.
func (w Words) dryRun(io harness.IO, data []planned) error {
	ef, nc, err := w.sweeps()
	if err != nil {
		return err
	}
	sel, err := shares(w.FilterSelectivity)
	if err != nil {
		return err
	}
	type at struct{ name, where, param string }
	var ens []at
	names, err := engines.ChooseVectors(w.Engines, w.ES)
	if err != nil {
		return err
	}
	for _, n := range names {
		d, err := engines.Vectors(n)
		if err != nil {
			return err
		}
		where := w.ES // ChooseVectors made sure of --es
		if d.Reach == catalog.RESP {
			where = target.Dry(w.Server.Host, w.Embedded)
		}
		ens = append(ens, at{n, where, d.VectorParam})
	}
	p := harness.NewPlan(io.Out, "tairbench vector")
	for _, set := range data {
		p.Note("data: %s; recall@%d against exact ground truth, each index %s dropped and created", set.desc, w.Data.K, w.Index)
		if set.absent {
			continue
		}
		for _, e := range ens {
			p.RunToEnd(e.name+" insert", fmt.Sprintf("insert every base vector, %d a request", w.Batch), e.where,
				engine.Config{Workers: w.LoadConnections, OpsPerRequest: w.Batch})
			sweep := sweepOf(e.param, ef, nc)
			if strings.EqualFold(set.algorithm, "FLAT") {
				sweep = []int{0} // exact search: nothing to sweep
			}
			if w.Stream {
				p.RunToEnd(e.name+" stream", fmt.Sprintf("insert the rest (%g of the vectors loaded first) at %.0f/s while searching k=%d at %.0f/s, "+
					"then 2s more", w.StreamInitial, w.StreamInsertRate, w.Data.K, w.StreamSearchRate), e.where,
					engine.Config{Workers: 2 + w.Connections, Rate: w.StreamSearchRate})
				continue
			}
			w.planSweep(p, e.name, e.param, e.where, sweep, "", fmt.Sprintf("k=%d queries (recall first, untimed)", w.Data.K))
			for _, s := range sel {
				w.planSweep(p, e.name, e.param, e.where, sweep, fmt.Sprintf(" %g %%", 100*s),
					fmt.Sprintf("k=%d queries kept to %g %% of the vectors (recall first, untimed)", w.Data.K, 100*s))
			}
		}
	}
	p.Close()
	return nil
}
