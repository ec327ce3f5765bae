package redis

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/commands"
	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
	"github.com/tairbench/tairbench/pkg/result"
)

// holdBytes is what one preloaded key takes beside its name.
func holdBytes(h commands.Holds, o Options) uint64 {
	switch h {
	case commands.Member:
		return 80
	case commands.RoaringRun: // a run container per 65,536 bits: a few bytes each
		return 100 + 8*(o.R2/65536+1)
	}
	return uint64(o.DataSize) + 64
}

var placeholder = regexp.MustCompile(`__RAND(\d?)(\{[a-z0-9]+\})?__`)

// preloadPlan is one fill: a write template over the whole key range.
type preloadPlan struct {
	read, template, shape string
	opts                  cmdtmpl.Options
	keys                  int64
	bytes                 uint64
}

// planPreload finds, for every read template, the write that gives each
// key it can draw a value; a read it cannot fill is refused.
func planPreload(o Options, opts cmdtmpl.Options) ([]preloadPlan, error) {
	var plans []preloadPlan
	for _, tmpl := range o.Commands {
		args, err := cmdtmpl.Split(tmpl)
		if err != nil || len(args) < 2 {
			continue
		}
		name := strings.ToUpper(args[0])
		info, _ := commands.Lookup(name)
		if info.Write || info.NoKey {
			continue
		}
		f := info.Fill
		if f == nil {
			return nil, fmt.Errorf("--preload does not know how to fill the keys of %s: fill them with a run of a write command first", name)
		}
		key := args[1]
		m := placeholder.FindAllStringSubmatch(key, -1)
		if len(m) > 1 {
			return nil, fmt.Errorf("--preload: the key %s draws %d placeholders; it fills keys of one placeholder", key, len(m))
		}
		p := preloadPlan{read: name, shape: f.Shape, opts: opts, keys: 1}
		if len(m) == 1 {
			n := 1
			if m[0][1] != "" {
				n, _ = strconv.Atoi(m[0][1])
			}
			r := opts.Ranges[n]
			if r.Max == 0 {
				return nil, fmt.Errorf("--preload: the key %s draws from an empty range", key)
			}
			p.opts.Ranges[n] = cmdtmpl.Range{Max: r.Max, Dist: cmdtmpl.Seq, Offset: r.Offset, Pad: r.Pad}
			p.keys = int64(r.Max)
		}
		p.template = strings.NewReplacer("{key}", key, "{end}", strconv.FormatUint(max(o.R2, 1)-1, 10)).Replace(f.Template)
		p.bytes = uint64(p.keys) * (uint64(len(key)) + 16 + holdBytes(f.Holds, o))
		plans = append(plans, p)
	}
	if len(plans) == 0 {
		return nil, errors.New("--preload: the commands only write; there is nothing to fill")
	}
	return plans, nil
}

// preload fills the keys (pipelined, 64 a write, 4 connections) and
// reports the phase; a plan above o.PreloadMax is refused before sending.
func (r *runner) preload(ctx context.Context) (*result.Preload, error) {
	plans, err := planPreload(r.o, r.ts.Options)
	if err != nil {
		return nil, err
	}
	var total uint64
	var keys int64
	for _, p := range plans {
		total += p.bytes
		keys += p.keys
	}
	if r.o.PreloadMax > 0 && total > r.o.PreloadMax {
		return nil, fmt.Errorf("--preload would write %d keys, about %d MB, above --max-memory (%d MB): narrow the key range (-r)", keys, total>>20, r.o.PreloadMax>>20)
	}
	out := &result.Preload{}
	start := time.Now()
	for _, p := range plans {
		fmt.Fprintf(r.io.Err, "preload: %d keys for %s, each %s (%s), about %d MB\n", p.keys, p.read, p.shape, p.template, p.bytes>>20)
		ts := driver.TemplateSpec{Template: p.template, Options: p.opts, Pipeline: 64}
		w, err := ts.Workload()
		if err != nil {
			return nil, fmt.Errorf("--preload: %w", err)
		}
		res, err := engine.Run(ctx, engine.Config{Workers: 4, Ops: p.keys, OpsPerRequest: w.OpsPerRequest(), Seed: 1},
			&driver.Factory{Target: r.tg, Workload: w, Workers: 4})
		if err != nil {
			return nil, fmt.Errorf("--preload: %w", err)
		}
		t := res.Snapshot.Totals
		out.Templates = append(out.Templates, p.template)
		out.Keys += p.keys
		out.Commands += t.Ops
		out.Errors += t.Errors
		if t.Errors > 0 {
			msg := ""
			if len(res.Snapshot.Errors) > 0 {
				msg = ": " + res.Snapshot.Errors[0].Message
			}
			return out, fmt.Errorf("--preload: %d of %d commands failed%s; the run did not start", t.Errors, t.Ops, msg)
		}
	}
	out.Seconds = time.Since(start).Seconds()
	fmt.Fprintf(r.io.Err, "preload: %d commands in %.2f s (%.0f/s), timed apart from the run\n", out.Commands, out.Seconds, float64(out.Commands)/max(out.Seconds, 1e-9))
	return out, nil
}
