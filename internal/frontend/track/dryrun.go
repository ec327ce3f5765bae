package track

import (
	"fmt"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
)

// DryRun prints the track's tasks as they would run on each engine, at
// targets (engine name to where it is), and sends nothing.
func DryRun(o Options, targets map[string]string, io harness.IO) error {
	tr, err := load(o)
	if err != nil {
		return err
	}
	p := harness.NewPlan(io.Out, "tairbench search run "+tr.Name)
	p.Note("corpus: %s, index %s; every engine's index is dropped and created first", corpusName(tr), tr.Index.Name)
	if r := tr.Relevance; r != nil {
		labels := "the track's qrels (" + r.Qrels + ") and queries (" + r.Queries + ")"
		if k := r.KnownItems; k != nil {
			labels = fmt.Sprintf("known items (%d documents' %s)", k.Count(), k.Field)
		}
		p.Note("relevance after the schedule: each labelled query once on each engine, from %s; recall@%d, MRR@10, NDCG@10", labels, r.CutOff())
	}
	for _, en := range o.Engines {
		for _, t := range tr.Tasks {
			cfg := engine.Config{Workers: t.Clients, Warmup: time.Duration(t.Warmup), Rate: t.Rate}
			var what []string
			if t.Ingest != nil {
				what = append(what, fmt.Sprintf("ingest %s, %d a request", docs(t.Ingest.Docs), max(t.Ingest.Bulk, 1)))
			}
			if len(t.Queries) > 0 {
				names := make([]string, len(t.Queries))
				for i, q := range t.Queries {
					names[i] = fmt.Sprintf("%s (weight %d)", q.Name, max(q.Weight, 1))
				}
				what = append(what, "queries "+strings.Join(names, ", "))
				cfg.Duration, cfg.Ops = time.Duration(t.Duration), t.Iterations
				if t.Ingest != nil {
					cfg.Workers += t.Ingest.Clients
				}
			} else {
				cfg.Workers, cfg.Warmup, cfg.Ops, cfg.OpsPerRequest = t.Ingest.Clients, 0, t.Ingest.Docs, max(t.Ingest.Bulk, 1)
				if cfg.Ops == 0 {
					cfg.Ops = tr.Corpus.Docs
				}
			}
			p.RunToEnd(en+" "+t.Name, strings.Join(what, "; "), targets[en], cfg)
		}
	}
	p.Close()
	return nil
}

// docs names an ingest's document count (0: the rest of the corpus).
func docs(n int64) string {
	if n == 0 {
		return "the rest of the corpus"
	}
	return fmt.Sprintf("%d documents", n)
}
