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
	rc := tl.reconcile([]string{"set"}, 3600)
	require.NotNil(t, rc)
	assert.True(t, rc.Match)
	rc = tl.reconcile([]string{"set"}, 3500)
	assert.False(t, rc.Match)
	assert.Contains(t, rc.Note, "100 more than")

	none := &timeline{s: &fakeSampler{start: start}}
	r, _ := none.s.Read(context.Background())
	none.readings = []Reading{r}
	assert.Nil(t, none.reconcile([]string{"set"}, 1), "no command statistics: no reconciliation")
}
