package run

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tairbench/tairbench/pkg/result"
)

// Reading is one reading of a server's own counters.
type Reading struct {
	At time.Time
	// Counters are cumulative; the timeline takes their differences:
	// CounterCommands, CounterCPUSeconds, CounterIndexed, CounterQueries.
	Counters map[string]float64
	// Gauges are read as they are: GaugeUsedMemory, GaugeClients, GaugeHeapUsed.
	Gauges map[string]float64
	// Calls are the calls per command (lower case), from INFO commandstats.
	Calls map[string]int64
}

// Counter and gauge names a Sampler may fill.
const (
	CounterCommands   = "commands"
	CounterCPUSeconds = "cpu_seconds"
	CounterIndexed    = "indexed"
	CounterQueries    = "queries"
	GaugeUsedMemory   = "used_memory"
	GaugeClients      = "connected_clients"
	GaugeHeapUsed     = "heap_used"
)

// Sampler reads a server's own counters on a connection of its own.
type Sampler interface {
	// Source names what is read ("INFO", "_nodes/stats").
	Source() string
	// Expected lists the counters and gauges this kind of server should give.
	Expected() []string
	Read(ctx context.Context) (Reading, error)
	Close() error
}

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
	for _, name := range tl.s.Expected() {
		if _, ok := last.Counters[name]; ok {
			continue
		}
		if _, ok := last.Gauges[name]; ok {
			continue
		}
		out.Missing = append(out.Missing, name)
	}
	out.Unanswered = len(tl.errs)
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
	rate := func(name string) *float64 {
		a, ok1 := prev.Counters[name]
		b, ok2 := cur.Counters[name]
		if !ok1 || !ok2 || dt <= 0 {
			return nil
		}
		v := (b - a) / dt
		return &v
	}
	gauge := func(name string) *int64 {
		v, ok := cur.Gauges[name]
		if !ok {
			return nil
		}
		n := int64(v)
		return &n
	}
	return result.ServerSample{Second: sec, At: cur.At.UTC(), OpsPerSec: rate(CounterCommands), CPUCores: rate(CounterCPUSeconds),
		UsedMemory: gauge(GaugeUsedMemory), ConnectedClients: gauge(GaugeClients), HeapUsed: gauge(GaugeHeapUsed),
		IndexingPerSec: rate(CounterIndexed), QueriesPerSec: rate(CounterQueries)}
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

// ParseInfo reads INFO's "name:value" lines into a Reading: the commands
// processed, CPU seconds, used memory, connected clients and commandstats.
func ParseInfo(at time.Time, info string) Reading {
	r := Reading{At: at, Counters: map[string]float64{}, Gauges: map[string]float64{}, Calls: map[string]int64{}}
	var cpu float64
	cpuParts := 0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		if name, ok := strings.CutPrefix(k, "cmdstat_"); ok {
			for _, kv := range strings.Split(v, ",") {
				if f, n, ok := strings.Cut(kv, "="); ok && f == "calls" {
					if c, err := strconv.ParseInt(n, 10, 64); err == nil {
						r.Calls[strings.ToLower(name)] = c
					}
				}
			}
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		switch k {
		case "total_commands_processed":
			r.Counters[CounterCommands] = x
		case "used_cpu_user", "used_cpu_sys":
			cpu += x
			cpuParts++
		case "used_memory":
			r.Gauges[GaugeUsedMemory] = x
		case "connected_clients":
			r.Gauges[GaugeClients] = x
		}
	}
	if cpuParts == 2 {
		r.Counters[CounterCPUSeconds] = cpu
	}
	return r
}
