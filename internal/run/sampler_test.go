package run

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/serverstat"
)

// fakeSampler gives 1,000 more commands and 0.5 CPU seconds per reading.
type fakeSampler struct {
	n     int
	start time.Time
	calls bool
}

func (f *fakeSampler) Source() string { return "fake" }
func (f *fakeSampler) Expected() []serverstat.Metric {
	return []serverstat.Metric{serverstat.Commands, serverstat.UsedMemory}
}
func (f *fakeSampler) Close() error { return nil }
func (f *fakeSampler) Read(context.Context) (Reading, error) {
	r := Reading{At: f.start.Add(time.Duration(f.n) * time.Second)}
	r.Set(serverstat.Commands, float64(1000*f.n))
	r.Set(serverstat.CPUSeconds, 0.5*float64(f.n))
	if f.calls {
		r.Calls = map[string]int64{"set": int64(900 * f.n)}
	}
	f.n++
	return r, nil
}

func TestTimelineBucketsAndReconciles(t *testing.T) {
	start := time.Unix(100, 0)
	f := &fakeSampler{start: start, calls: true}
	tl := &timeline{s: f}
	for i := 0; i < 4; i++ { // readings at 0 s … 3 s
		r, err := f.Read(context.Background())
		require.NoError(t, err)
		tl.readings = append(tl.readings, r)
	}
	tl.stop, tl.done = make(chan struct{}), make(chan struct{})
	close(tl.done)
	out := tl.finish(context.Background(), start, 4*time.Second) // takes a 5th reading at 4 s
	require.Len(t, out.Samples, 4, "one sample per second of the run")
	for i, s := range out.Samples {
		assert.Equal(t, i, s.Second)
		require.NotNil(t, s.OpsPerSec)
		assert.InDelta(t, 1000, *s.OpsPerSec, 1e-9)
		assert.InDelta(t, 0.5, *s.CPUCores, 1e-9)
		assert.Nil(t, s.UsedMemory, "not given: null")
	}
	assert.Equal(t, []string{"used_memory"}, out.Missing)
	rc := tl.reconcile([]string{"set"}, clientView{Counted: 3600}, start)
	require.NotNil(t, rc)
	assert.True(t, rc.Match)
	assert.True(t, rc.Complete)
	require.Len(t, rc.Lives, 1)
	rc = tl.reconcile([]string{"set"}, clientView{Counted: 3500}, start)
	assert.False(t, rc.Match)
	assert.Contains(t, rc.Note, "100 more than")
	assert.Equal(t, []string{"unexplained: no restart, lost request, interrupt or other client was seen"}, rc.Causes)

	none := &timeline{s: &fakeSampler{start: start}}
	r, _ := none.s.Read(context.Background())
	none.readings = []Reading{r}
	assert.Nil(t, none.reconcile([]string{"set"}, clientView{Counted: 1}, start), "no command statistics: no reconciliation")
}

// reading is one INFO reading at second sec of a server life.
func reading(start time.Time, sec float64, life string, uptime, calls, rejected, failed int64) Reading {
	r := Reading{At: start.Add(time.Duration(sec * float64(time.Second))), Life: life,
		Calls: map[string]int64{"incr": calls}, Rejected: map[string]int64{"incr": rejected}, Failed: map[string]int64{"incr": failed}}
	r.Set(serverstat.Uptime, float64(uptime))
	r.Set(serverstat.Commands, float64(calls+rejected))
	r.Set(serverstat.CPUSeconds, float64(calls)/1e5)
	return r
}

func TestReconcilePerServerLife(t *testing.T) {
	start := time.Unix(100, 0)
	cases := []struct {
		name       string
		readings   []Reading
		lastFailed bool
		cv         clientView
		match      bool
		server     int64
		lives      []int64
		causes     []string
	}{
		{name: "one life, rejected calls count as answered",
			readings: []Reading{reading(start, 0, "a", 10, 50, 0, 0), reading(start, 1, "a", 11, 1050, 40, 2), reading(start, 2, "a", 12, 2050, 40, 2)},
			cv:       clientView{Counted: 2040}, match: true, server: 2040, lives: []int64{2000}},
		{name: "restart: the new life counts from 0, the old one's end is unknown",
			readings: []Reading{reading(start, 0, "a", 10, 50, 0, 0), reading(start, 1, "a", 11, 1050, 0, 0),
				reading(start, 2, "b", 0, 300, 5, 0), reading(start, 3, "b", 1, 1300, 5, 0)},
			cv:    clientView{Counted: 2500, Lost: 4},
			match: false, server: 2305, lives: []int64{1000, 1300},
			causes: []string{"restart:", "lost requests: 4"}},
		{name: "stopped answering: the last count is not the server's",
			readings: []Reading{reading(start, 0, "a", 10, 50, 0, 0), reading(start, 1, "a", 11, 1050, 0, 0)}, lastFailed: true,
			cv: clientView{Counted: 1900}, match: false, server: 1000, lives: []int64{1000},
			causes: []string{"stopped answering: the server's last reading failed; its count after 1.0 s is unknown"}},
		{name: "uptime down with the same run id is a restart too",
			readings: []Reading{reading(start, 0, "", 10, 50, 0, 0), reading(start, 1, "", 2, 100, 0, 0), reading(start, 2, "", 3, 200, 0, 0)},
			cv:       clientView{Counted: 200}, match: false, server: 200, lives: []int64{0, 200},
			causes: []string{"restart:"}},
		{name: "more on the server with other clients connected",
			readings: []Reading{reading(start, 0, "a", 10, 0, 0, 0), reading(start, 1, "a", 11, 1200, 0, 0)},
			cv:       clientView{Counted: 1000, Connections: 4}, match: false, server: 1200, lives: []int64{1200},
			causes: []string{"other clients: up to 9 clients"}},
	}
	cases[4].readings[1].Set(serverstat.Clients, 9)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := &timeline{s: &fakeSampler{}, readings: c.readings, lastFailed: c.lastFailed}
			rc := tl.reconcile([]string{"incr"}, c.cv, start)
			require.NotNil(t, rc)
			assert.Equal(t, c.match, rc.Match)
			assert.Equal(t, c.server, rc.Server)
			var lives []int64
			for _, l := range rc.Lives {
				lives = append(lives, l.Calls)
			}
			assert.Equal(t, c.lives, lives)
			require.Len(t, rc.Causes, len(c.causes), "%q", rc.Causes)
			for i, want := range c.causes {
				assert.Contains(t, rc.Causes[i], want)
			}
			tl.stop, tl.done = make(chan struct{}), make(chan struct{})
			close(tl.done)
			tl.s = &staleSampler{}
			out := tl.finish(context.Background(), start, 3*time.Second)
			for _, s := range out.Samples {
				if s.OpsPerSec != nil {
					assert.GreaterOrEqual(t, *s.OpsPerSec, 0.0, "never a negative rate")
				}
			}
		})
	}
}

// staleSampler never answers.
type staleSampler struct{ fakeSampler }

func (s *staleSampler) Read(context.Context) (Reading, error) { return Reading{}, assert.AnError }
