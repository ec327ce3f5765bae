package bitmap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/bitmaps"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
)

// Structures are the structures a comparison can load, in its order.
var Structures = bitmaps.Structures

// Words are 'bitmap compare' as the user gave it: tairbench's own options
// (common.Options), addresses, files and sizes as text, before anything is
// read or started. Embedded asks for TairRoaring on the embedded server
// (the default without Roaring); DryRun is PlanOnly; Timeout bounds every
// connection and request of both targets.
type Words struct {
	common.Options
	// Roaring and Redis are HOST:PORT ("": the embedded server, and a
	// redis-server started for the run); each with its -a form.
	Roaring, RoaringAuth, Redis, RedisAuth string
	// IDs are files of IDs (IDsFormat: text, u32, u64); FromKeys are
	// HOST:PORT/KEY of existing keys.
	IDs, FromKeys []string
	IDsFormat     string
	// Shape, Cardinalities (one number or a comma list), Universe, Keys,
	// SizeSkew, Block and RunLength describe generated IDs.
	Shape, Cardinalities, Universe string
	Keys                           int
	SizeSkew                       float64
	Block, RunLength               uint64
	Structures, Ops                []string
	Connections, Probes            int
	Duration                       time.Duration
	Rate                           float64
	// MaxMemory is a size ("2GiB"; "0" no bound).
	MaxMemory string
	// PlanOnly (--plan) prints the plan and stops, as DryRun does.
	PlanOnly bool
}

// Main reads the IDs the words name, starts the servers they leave out
// (the embedded server for TairRoaring, a redis-server for the Redis
// structures) and runs the comparison.
func Main(ctx context.Context, w Words, io harness.IO) error {
	o, err := w.options(ctx)
	if err != nil {
		return err
	}
	if o.Roaring.Addr == "" && !o.PlanOnly && wants(o.Structures, bitmaps.TairRoaring) {
		stop, err := target.StartEmbedded(io, &o.Roaring)
		if err != nil {
			return err
		}
		defer stop()
	}
	if o.Redis.Addr == "" && !o.PlanOnly && (wants(o.Structures, bitmaps.RedisBitmap) || wants(o.Structures, bitmaps.RedisSet)) {
		addr, stop, err := target.StartRedisServer(io)
		if err != nil {
			return err
		}
		defer stop()
		o.Redis.Addr = addr
	}
	return w.Sinks.Run(ctx, io, func(ctx context.Context) error {
		_, err := Run(ctx, o, io)
		return err
	})
}

// wants says whether list (empty: every one) holds s.
func wants(list []string, s string) bool { return len(list) == 0 || slices.Contains(list, s) }

// options turns the words into Options, reading every ID file and key.
func (w Words) options(ctx context.Context) (Options, error) {
	o := Options{Structures: w.Structures, Ops: w.Ops, Keys: w.Keys, SizeSkew: w.SizeSkew, Connections: w.Connections,
		Duration: w.Duration, Rate: w.Rate, Probes: w.Probes, Seed: harness.SeedOrNew(w.Seed), JSON: w.JSON,
		PlanOnly: w.PlanOnly || w.DryRun, ServerStats: !w.NoServerStats}
	o.Roaring = endpoint.Target{Addr: w.Roaring, Auth: w.RoaringAuth, Protocol: 2, Timeout: w.Timeout}
	o.Redis = endpoint.Target{Addr: w.Redis, Auth: w.RedisAuth, Protocol: 2, Timeout: w.Timeout}
	if w.Embedded && w.Roaring != "" {
		return o, fmt.Errorf("--embedded and --roaring %s both name TairRoaring's server: give one", w.Roaring)
	}
	if w.Timeout <= 0 {
		return o, fmt.Errorf("--timeout %s: want a positive duration (30s)", w.Timeout)
	}
	var err error
	if o.MaxMemory, err = flagval.ParseBytes(w.MaxMemory); err != nil {
		return o, fmt.Errorf("--max-memory %w", err)
	}
	if len(w.IDs) > 0 || len(w.FromKeys) > 0 {
		return o, w.readSets(ctx, &o)
	}
	u, err := flagval.ParseCount(w.Universe)
	if err != nil {
		return o, fmt.Errorf("--universe %w", err)
	}
	o.Gen = GenSpec{Shape: w.Shape, Universe: u, Block: w.Block, RunLength: w.RunLength}
	for _, c := range strings.Split(w.Cardinalities, ",") {
		n, err := flagval.ParseCount(c)
		if err != nil {
			return o, fmt.Errorf("--cardinality %w", err)
		}
		g := o.Gen
		g.Cardinality = n
		if err := g.Validate(); err != nil {
			return o, fmt.Errorf("--cardinality %d, --universe %d, --shape %s: %w", n, u, w.Shape, err)
		}
		o.Cardinalities = append(o.Cardinalities, n)
	}
	return o, nil
}

// readSets reads the user's IDs: every file and key, before anything is loaded.
func (w Words) readSets(ctx context.Context, o *Options) error {
	o.Data = "ids"
	for _, path := range w.IDs {
		set, err := ReadIDFile(path, w.IDsFormat)
		if err != nil {
			return fmt.Errorf("%w (nothing loaded)", err)
		}
		o.Sets = append(o.Sets, set)
	}
	for _, ref := range w.FromKeys {
		addr, key, ok := strings.Cut(ref, "/")
		if !ok || key == "" || !strings.Contains(addr, ":") {
			return fmt.Errorf("--from-key %q: want HOST:PORT/KEY", ref)
		}
		o.Data = "from-key"
		bm, kind, err := bitmaps.ReadKey(ctx, endpoint.Target{Addr: addr, Protocol: 2, Timeout: 30 * time.Second}, key)
		if err != nil {
			return fmt.Errorf("--from-key %s: %w", ref, err)
		}
		o.Sets = append(o.Sets, IDSet{Source: fmt.Sprintf("%s key %s (%s)", addr, key, kind), IDs: bm, Read: bm.GetCardinality()})
	}
	if len(o.Sets) == 0 {
		return errors.New("no IDs given")
	}
	return nil
}
