package run

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/tairbench/tairbench/internal/serverstat"
	"github.com/tairbench/tairbench/pkg/result"
)

// Sampler reads a server's own counters; drivers implement it.
type Sampler = serverstat.Sampler

// Reading is one reading of a sampler.
type Reading = serverstat.Reading

// timeline samples once a second while a run goes.
type timeline struct {
	s        Sampler
	mu       sync.Mutex
	readings []Reading
	errs     []time.Time
	stop     chan struct{}
	done     chan struct{}
}

func startTimeline(ctx context.Context, s Sampler) (*timeline, error) {
	first, err := s.Read(ctx)
	if err != nil {
		return nil, err
	}
	tl := &timeline{s: s, readings: []Reading{first}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(tl.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tl.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				tl.read(ctx)
			}
		}
	}()
	return tl, nil
}

func (tl *timeline) read(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 900*time.Millisecond)
	defer cancel()
	r, err := tl.s.Read(rctx)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if err != nil {
		tl.errs = append(tl.errs, time.Now())
		return
	}
	tl.readings = append(tl.readings, r)
}

// finish takes the last reading and builds the timeline of the measured
// time [start, start+measured).
func (tl *timeline) finish(ctx context.Context, start time.Time, measured time.Duration) *result.ServerTimeline {
	close(tl.stop)
	<-tl.done
	tl.read(ctx)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	out := &result.ServerTimeline{Source: tl.s.Source(), Samples: []result.ServerSample{}, Missing: []string{}}
	last := tl.readings[len(tl.readings)-1]
	for _, m := range tl.s.Expected() {
		if _, ok := last.Get(m); !ok {
			out.Missing = append(out.Missing, m.String())
		}
	}
	out.Unanswered = len(tl.errs)
	if a, ok1 := tl.readings[0].Get(serverstat.KeyspaceMisses); ok1 {
		if b, ok2 := last.Get(serverstat.KeyspaceMisses); ok2 && b >= a {
			n := int64(b - a)
			out.KeyspaceMisses = &n
		}
	}
	rows := int(math.Ceil(measured.Seconds()))
	bySecond := map[int]result.ServerSample{}
	for i := 1; i < len(tl.readings); i++ {
		prev, cur := tl.readings[i-1], tl.readings[i]
		// A reading closes the second in which most of its interval lies.
		mid := prev.At.Add(cur.At.Sub(prev.At) / 2)
		sec := int(math.Floor(mid.Sub(start).Seconds()))
		if sec < 0 || sec >= rows {
			continue
		}
		bySecond[sec] = sample(sec, prev, cur)
	}
	for sec := 0; sec < rows; sec++ {
		if s, ok := bySecond[sec]; ok {
			out.Samples = append(out.Samples, s)
		} else {
			out.Samples = append(out.Samples, result.ServerSample{Second: sec})
		}
	}
	return out
}

func sample(sec int, prev, cur Reading) result.ServerSample {
	dt := cur.At.Sub(prev.At).Seconds()
	rate := func(m serverstat.Metric) *float64 {
		a, ok1 := prev.Get(m)
		b, ok2 := cur.Get(m)
		if !ok1 || !ok2 || dt <= 0 {
			return nil
		}
		v := (b - a) / dt
		return &v
	}
	gauge := func(m serverstat.Metric) *int64 {
		v, ok := cur.Get(m)
		if !ok {
			return nil
		}
		n := int64(v)
		return &n
	}
	return result.ServerSample{Second: sec, At: cur.At.UTC(), OpsPerSec: rate(serverstat.Commands), CPUCores: rate(serverstat.CPUSeconds),
		UsedMemory: gauge(serverstat.UsedMemory), ConnectedClients: gauge(serverstat.Clients), HeapUsed: gauge(serverstat.HeapUsed),
		IndexingPerSec: rate(serverstat.Indexed), QueriesPerSec: rate(serverstat.Queries)}
}

// reconcile compares the server's calls of the commands between the first
// and the last reading with what the client counted; nil when the server
// gives no command statistics (they are then listed as missing).
func (tl *timeline) reconcile(commands []string, client int64) *result.Reconciliation {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	first, last := tl.readings[0], tl.readings[len(tl.readings)-1]
	if len(last.Calls) == 0 {
		return nil
	}
	r := &result.Reconciliation{Commands: commands, Client: client}
	for _, c := range commands {
		r.Server += last.Calls[c] - first.Calls[c]
	}
	r.Match = r.Server == r.Client
	if !r.Match {
		r.Note = fmt.Sprintf("the server ran %d %s the client counted", abs(r.Server-r.Client), moreOrFewer(r.Server-r.Client))
	}
	return r
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func moreOrFewer(d int64) string {
	if d > 0 {
		return "more than"
	}
	return "fewer than"
}
