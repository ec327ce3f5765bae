package engine

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModes: each mode's executor runs the workers that can run in it,
// chosen by the engine or named by the caller, and a mode that does not
// fit the schedule or the workers is refused before the run starts.
func TestModes(t *testing.T) {
	open := Config{Workers: 2, Duration: 50 * time.Millisecond, Rate: 2000}
	closed := Config{Workers: 2, Ops: 40}
	with := func(cfg Config, m Mode) Config { cfg.Mode = m; return cfg }
	grid := open
	grid.SendGrid = time.Millisecond
	paced := Config{Workers: 2, Duration: 50 * time.Millisecond,
		Pacers: func(id, workers int, seed uint64, end time.Duration) Pacer {
			return NewPacer(2000, workers, id, false, seed, end)
		}}
	pollers := ModeOpen // on its own, a Deferrer waits for its replies
	if runtime.GOOS == "linux" {
		pollers = ModeDeferred // in groups
	}
	tests := []struct {
		name    string
		cfg     Config
		f       Factory
		want    Mode
		wantErr string
	}{
		{"closed by default", closed, &fakeFactory{ops: 1}, ModeClosed, ""},
		{"a Drainer's closed loop is the window", closed, &windowishFactory{}, ModeWindow, ""},
		{"a rate makes it open", open, &stallFactory{}, ModeOpen, ""},
		{"a caller's pacer makes it open", paced, &stallFactory{}, ModeOpen, ""},
		{"a Streamer streams", open, &streamFactory{window: 4, service: time.Millisecond}, ModeStream, ""},
		{"a RoutedStreamer routes", open, routedFactory{&streamFactory{window: 4, service: time.Millisecond}}, ModeRouted, ""},
		{"Deferrers on the grid defer", grid, &deferFactory{}, ModeDeferred, ""},
		{"Deferrers off the grid wait", open, nopDeferrerFactory{}, ModeOpen, ""},
		{"Pollers off the grid", open, nopPollerFactory{}, pollers, ""},
		{"open named for Deferrers", with(grid, ModeOpen), &deferFactory{}, ModeOpen, ""},
		{"stream named", with(open, ModeStream), &streamFactory{window: 4, service: time.Millisecond}, ModeStream, ""},
		{"window named", with(closed, ModeWindow), &windowishFactory{}, ModeWindow, ""},

		{"no such mode", with(closed, "burst"), &fakeFactory{ops: 1}, "", `no mode "burst"`},
		{"an open mode needs a schedule", with(closed, ModeStream), &fakeFactory{ops: 1}, "", "needs a schedule"},
		{"a closed mode has none", with(open, ModeClosed), &fakeFactory{ops: 1}, "", "has no schedule"},
		{"closed named for a Drainer", with(closed, ModeClosed), &windowishFactory{}, "", "its closed loop is the window mode"},
		{"window named for a plain worker", with(closed, ModeWindow), &fakeFactory{ops: 1}, "", "cannot run in the window mode"},
		{"routed named for a Streamer", with(open, ModeRouted), &streamFactory{window: 4}, "", "cannot run in the routed mode"},
		{"deferred named for a plain worker", with(open, ModeDeferred), &stallFactory{}, "", "cannot run in the deferred mode"},
		{"a window that cannot stream", open, &windowishFactory{}, "", "cannot run an open loop"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(context.Background(), tc.cfg, tc.f)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, map[Mode]int{tc.want: tc.cfg.Workers}, res.Modes)
			assert.Equal(t, tc.want.Open(), res.Snapshot.Totals.CorrectedLatency != nil, "latency from the intended start in an open mode only")
		})
	}
}

// stepPacer sends request n at n×gap, the first count of them: a
// caller's own schedule.
type stepPacer struct {
	gap   time.Duration
	count uint64
}

func (p stepPacer) Due(n uint64) time.Duration { return time.Duration(n) * p.gap }

func (p stepPacer) Pace(elapsed time.Duration, sent uint64) (time.Duration, bool) {
	if sent >= p.count {
		return 0, true
	}
	return max(p.Due(sent)-elapsed, 0), false
}

// TestCallersPacer: a caller's Pacer sets each worker's schedule, and
// its end ends the run; latency runs from its intended starts.
func TestCallersPacer(t *testing.T) {
	simulated(t, func(t *testing.T) {
		var mu sync.Mutex
		var asked []int
		cfg := Config{Workers: 3, Duration: time.Hour, Seed: 1,
			Pacers: func(id, workers int, _ uint64, end time.Duration) Pacer {
				mu.Lock() // each worker asks from its own goroutine
				defer mu.Unlock()
				asked = append(asked, id, workers)
				assert.Equal(t, time.Hour, end)
				return stepPacer{gap: 100 * time.Millisecond, count: 5}
			}}
		start := time.Now()
		res, err := Run(context.Background(), cfg, &stallFactory{})
		require.NoError(t, err)
		assert.ElementsMatch(t, []int{0, 3, 1, 3, 2, 3}, asked)
		assert.Equal(t, StopDuration, res.StopReason, "the schedule ended")
		assert.InDelta(t, 15, res.Snapshot.Totals.Requests, 3, "five each, less what the first to end cut short")
		assert.Less(t, time.Since(start), time.Second, "at the schedule's end, not the hour's")
		assert.InDelta(t, 1000, res.Snapshot.Totals.CorrectedLatency.P99, 5, "from each intended start: the 1 ms service")
	})
}

// TestSchedulesEnd: schedules of their own lengths (a replay's
// connections) each run to their end, the run ends with the last, and it
// is measured to then, not to its Duration.
func TestSchedulesEnd(t *testing.T) {
	simulated(t, func(t *testing.T) {
		cfg := Config{Workers: 3, Duration: time.Hour, Seed: 1, SchedulesEnd: true,
			Pacers: func(id, workers int, _ uint64, end time.Duration) Pacer {
				return stepPacer{gap: 10 * time.Millisecond, count: uint64(1 + 10*id)} // 1, 11 and 21 requests
			}}
		start := time.Now()
		res, err := Run(context.Background(), cfg, &stallFactory{})
		require.NoError(t, err)
		assert.Equal(t, StopExhausted, res.StopReason, "every schedule ran out")
		assert.Equal(t, int64(33), res.Snapshot.Totals.Requests, "each schedule whole, the short ones too")
		assert.Less(t, res.Elapsed, time.Second, "measured to the last reply, not the hour")
		assert.Less(t, time.Since(start), 5*time.Second)
	})
}
