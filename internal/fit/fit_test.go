package fit

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/internal/workload"
)

// known is a workload of known shape: 70 % GETs of user:{id}:cart drawn
// by Zipf 0.99 over 1,000 keys; 20 % SETs of session:{id} drawn
// uniformly over 500, values of 100 to 300 bytes, TTLs of 60 to 600 s;
// 10 % SETs of log:{id} in sequence, at 5,000 commands a second.
func known(n int) []trace.Record {
	rng := rand.New(rand.NewPCG(7, 8))
	z := exactZipfSampler(1000, 0.99)
	var recs []trace.Record
	seq := 0
	for i := range n {
		at := time.Duration(i) * 200 * time.Microsecond
		var args []string
		switch x := rng.IntN(100); {
		case x < 70:
			args = []string{"GET", fmt.Sprintf("user:%d:cart", z(rng))}
		case x < 90:
			size := 100 + rng.IntN(201)
			args = []string{"SET", fmt.Sprintf("session:%d", rng.IntN(500)), strings.Repeat("v", size), "EX", fmt.Sprint(60 + rng.IntN(541))}
		default:
			args = []string{"SET", fmt.Sprintf("log:%d", seq), "entry"}
			seq++
		}
		r := trace.Record{At: at, Conn: uint32(i % 8)}
		for _, a := range args {
			r.Args = append(r.Args, []byte(a))
		}
		recs = append(recs, r)
	}
	return recs
}

// exactZipfSampler draws ranks 0..keys-1 by (r+1)^−s.
func exactZipfSampler(keys int, s float64) func(*rand.Rand) int {
	cdf := make([]float64, keys)
	var h float64
	for r := 1; r <= keys; r++ {
		h += math.Pow(float64(r), -s)
		cdf[r-1] = h
	}
	return func(rng *rand.Rand) int {
		u := rng.Float64() * h
		lo, hi := 0, keys-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cdf[mid] < u {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return lo
	}
}

// TestFitKnownWorkload: the fit finds the three patterns, their shares
// within a point, the Zipf exponent within 0.05, the uniform and the
// sequential keys, the value sizes and TTLs within 10 %.
func TestFitKnownWorkload(t *testing.T) {
	f := New()
	recs := known(100_000)
	for i := range recs {
		f.Add(&recs[i])
	}
	m := f.Model()
	require.Len(t, m.Patterns, 3)
	byName := map[string]PatternModel{}
	for _, p := range m.Patterns {
		byName[p.Pattern] = p
	}
	cart, session, log := byName["user:{id}:cart"], byName["session:{id}"], byName["log:{id}"]
	assert.InDelta(t, 0.70, cart.Share, 0.01)
	assert.InDelta(t, 0.20, session.Share, 0.01)
	assert.InDelta(t, 0.10, log.Share, 0.01)
	assert.Equal(t, "zipf", cart.Popularity.Dist)
	assert.InDelta(t, 0.99, cart.Popularity.Zipf, 0.05)
	assert.Equal(t, "uniform", session.Popularity.Dist)
	assert.Equal(t, "sequential", log.Popularity.Dist)
	require.NotNil(t, session.ValueBytes)
	assert.InEpsilon(t, 200, session.ValueBytes.P50, 0.1)
	assert.InEpsilon(t, 280, session.ValueBytes.P90, 0.1)
	require.NotNil(t, session.TTLSeconds)
	assert.InEpsilon(t, 330, session.TTLSeconds.P50, 0.1)
	assert.InEpsilon(t, 546, session.TTLSeconds.P90, 0.1)
	assert.InDelta(t, 5000, m.Traffic.MeanPerS, 5)
	assert.Equal(t, 8, m.Connections)
	assert.InDelta(t, 1, m.Traffic.Pipeline, 0.01, "commands 200 µs apart, each connection's 1.6 ms apart")

	w, _, err := f.Workload("test")
	require.NoError(t, err)
	cmds := map[string]workload.Operation{}
	for _, o := range w.Operations {
		cmds[o.Name] = o
	}
	get := cmds["GET user:{id}:cart"]
	assert.Equal(t, "GET user:__RAND{k}__:cart", get.Command)
	assert.Equal(t, "zipf", get.Ranges[1].Dist)
	assert.Equal(t, uint64(1000), get.Ranges[1].Size, "every key was drawn at least once")
	set := cmds["SET session:{id}"]
	assert.Equal(t, "SET session:__RAND{k}__ __DATA__ EX __RAND2__", set.Command)
	assert.InDelta(t, 200, set.DataSize, 20)
	assert.Equal(t, workload.Range{Size: 541, Offset: 60}, set.Ranges[2])
	logs := cmds["SET log:{id}"]
	assert.Equal(t, "seq", logs.Ranges[1].Dist)

	var buf bytes.Buffer
	require.NoError(t, w.Write(&buf, "fitted from test"))
	back, err := workload.Read(&buf)
	require.NoError(t, err, buf.String())
	assert.Equal(t, w.Operations, back.Operations)
}

// TestTrafficShape: commands of one connection close together are a
// burst (a pipeline), MULTI … EXEC is counted, a read after a write is
// timed from it.
func TestTrafficShape(t *testing.T) {
	f := New()
	add := func(at time.Duration, conn uint32, line string) {
		r := trace.Record{At: at, Conn: conn}
		for _, w := range strings.Fields(line) {
			r.Args = append(r.Args, []byte(w))
		}
		f.Add(&r)
	}
	add(0, 1, "SET k:1 v")
	add(10*time.Microsecond, 1, "SET k:2 v") // the same burst
	add(20*time.Microsecond, 1, "SET k:3 v")
	add(5*time.Millisecond, 2, "MULTI")
	add(6*time.Millisecond, 2, "INCR k:4")
	add(7*time.Millisecond, 2, "EXEC")
	add(9*time.Millisecond, 1, "GET k:1")
	m := f.Model()
	assert.InDelta(t, 7.0/5, m.Traffic.Pipeline, 0.001, "seven commands in five bursts")
	assert.InDelta(t, 3.0/7, m.Traffic.MultiShare, 0.001)
	require.Len(t, m.Patterns, 1)
	raw := m.Patterns[0].ReadAfterWriteMS
	require.NotNil(t, raw)
	assert.Equal(t, 9.0, raw.P50, "GET k:1, 9 ms after its SET")
	assert.Equal(t, []NameCount{{Name: "EXEC", N: 1}, {Name: "MULTI", N: 1}}, m.Unkeyed, "the commands that name no key")
}
