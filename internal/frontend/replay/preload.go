package replay

import (
	"context"
	"fmt"
	"time"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/replay"
	"github.com/tairbench/tairbench/pkg/result"
)

// fillConnections is how many connections a preload writes on.
const fillConnections = 8

// defaultFillSize is a preloaded value's size when the trace SETs none.
const defaultFillSize = 64

// preload writes every key the replay reads and never writes, timed apart
// from the replay; a failed write stops it before the replay starts.
func preload(ctx context.Context, io harness.IO, tg endpoint.Target, s *replay.Schedule, size int) (*result.Preload, error) {
	if len(s.Unwritten) == 0 {
		fmt.Fprintln(io.Err, "preload: the replay reads no key it does not write; nothing to fill")
		return &result.Preload{}, nil
	}
	switch {
	case size > 0:
	case s.ValueSize > 0:
		size = s.ValueSize
	default:
		size = defaultFillSize
	}
	fills, err := replay.Fills(s.Unwritten, size, fillConnections)
	if err != nil {
		return nil, err
	}
	sized := 0
	for _, u := range s.Unwritten {
		if u.Size > 0 {
			sized++
		}
	}
	if sized > 0 {
		fmt.Fprintf(io.Err, "preload: %d keys the trace reads and never writes; %d of them at the size their captured reply had, the others %d bytes\n",
			len(s.Unwritten), sized, size)
	} else {
		fmt.Fprintf(io.Err, "preload: %d keys the trace reads and never writes, each value %d bytes\n", len(s.Unwritten), size)
	}
	start := time.Now()
	res, err := engine.Run(ctx, engine.Config{Workers: len(fills.Conns), Duration: time.Hour, Rate: 1e6, Seed: 1, SchedulesEnd: true,
		RequestTimeout: tg.RequestTimeout(),
		Pacers:         func(id, _ int, _ uint64, end time.Duration) engine.Pacer { return fills.Pacer(id, 1, end) }},
		&driver.Factory{Target: tg, Workload: driver.Workload{Mode: driver.Single, N: 1,
			Sources: func(id int) driver.Source { return fills.Source(id) }}, Workers: len(fills.Conns)})
	if err != nil {
		return nil, fmt.Errorf("--preload: %w", err)
	}
	t := res.Snapshot.Totals
	out := &result.Preload{Keys: int64(len(s.Unwritten)), Commands: t.Ops, Errors: t.Errors, Seconds: time.Since(start).Seconds()}
	for _, m := range fills.Mix {
		out.Templates = append(out.Templates, m.Name)
	}
	if t.Errors > 0 || t.Ops < fills.Commands {
		msg := ""
		if len(res.Snapshot.Errors) > 0 {
			msg = ": " + res.Snapshot.Errors[0].Message
		}
		return out, fmt.Errorf("--preload: %d of %d writes failed or went unanswered%s; the replay did not start", fills.Commands-t.Ops+t.Errors, fills.Commands, msg)
	}
	fmt.Fprintf(io.Err, "preload: %d commands in %.2f s, timed apart from the replay\n", t.Ops, out.Seconds)
	return out, nil
}
