package run

import (
	"context"
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
	// lastFailed says the latest reading failed: the server's counts
	// after the last good one are unknown.
	lastFailed bool
	stop       chan struct{}
	done       chan struct{}
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
	tl.lastFailed = err != nil
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
	out.KeyspaceMisses = tl.counted(serverstat.KeyspaceMisses)
	rows := int(math.Ceil(measured.Seconds()))
	bySecond := map[int]result.ServerSample{}
	for i := 1; i < len(tl.readings); i++ {
		prev, cur := tl.readings[i-1], tl.readings[i]
		if serverstat.Restarted(prev, cur) {
			// No rate spans two lives of the server.
			out.Restarts = append(out.Restarts, round3(cur.At.Sub(start).Seconds()))
			continue
		}
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
		if v < 0 {
			return nil
		}
		if m == serverstat.CPUSeconds {
			if cores, ok := cur.Get(serverstat.Cores); ok && cores > 0 {
				// A process cannot use more cores than it has: more is the
				// readings' jitter (coarse CPU clocks), so clip it.
				v = min(v, cores)
			}
		}
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

// counted is a counter's increase over the run, summed over the server's
// lives (a restarted server counts from 0); nil when a reading lacks it.
func (tl *timeline) counted(m serverstat.Metric) *int64 {
	var n float64
	base, ok := tl.readings[0].Get(m)
	if !ok {
		return nil
	}
	for i := 1; i < len(tl.readings); i++ {
		prev, cur := tl.readings[i-1], tl.readings[i]
		v, ok := cur.Get(m)
		if !ok {
			return nil
		}
		if serverstat.Restarted(prev, cur) {
			p, _ := prev.Get(m)
			n += p - base
			base = 0
		}
		if i == len(tl.readings)-1 {
			n += v - base
		}
	}
	out := int64(n)
	return &out
}

func round3(x float64) float64 {
	if r := math.Round(x*1000) / 1000; r != 0 {
		return r
	}
	return 0 // not -0
}
