package harness

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

func TestParseShard(t *testing.T) {
	cases := []struct {
		shard, startAt string
		want           Shard
		label, err     string
	}{
		{"", "", Shard{N: 1}, "", ""},
		{"0/3", "", Shard{I: 0, N: 3}, "0/3", ""},
		{"2/3", "1700000000", Shard{I: 2, N: 3, StartAt: time.Unix(1_700_000_000, 0)}, "2/3", ""},
		{"1/2", "2026-11-23T15:00:00Z", Shard{I: 1, N: 2, StartAt: time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)}, "1/2", ""},
		{"3/3", "", Shard{}, "", `--shard "3/3": want i/N with 0 ≤ i < N`},
		{"-1/3", "", Shard{}, "", "want i/N"},
		{"1", "", Shard{}, "", "want i/N"},
		{"0/0", "", Shard{}, "", "want i/N"},
		{"", "tomorrow", Shard{}, "", `--start-at "tomorrow": want RFC 3339`},
	}
	for _, c := range cases {
		t.Run(c.shard+"@"+c.startAt, func(t *testing.T) {
			s, err := ParseShard(c.shard, c.startAt)
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want.I, s.I)
			assert.Equal(t, c.want.N, s.N)
			assert.True(t, c.want.StartAt.Equal(s.StartAt), "start %v, want %v", s.StartAt, c.want.StartAt)
			assert.Equal(t, c.label, s.Label())
		})
	}
}

// TestShardRanges: the shards of a sequential range cover it once, the
// last taking the remainder; other ranges are left alone.
func TestShardRanges(t *testing.T) {
	var covered uint64
	for i := 0; i < 3; i++ {
		o := cmdtmpl.Options{}
		o.Ranges[0], o.Ranges[1] = cmdtmpl.Range{Max: 10, Dist: cmdtmpl.Seq}, cmdtmpl.Range{Max: 10}
		s := Shard{I: i, N: 3}
		s.Ranges(&o)
		assert.Equal(t, covered, o.Ranges[0].Offset, "shard %d starts where the last ended", i)
		covered += o.Ranges[0].Max
		assert.Equal(t, uint64(10), o.Ranges[1].Max, "a uniform range is every shard's")
		assert.NotEqual(t, s.Seed(7), Shard{I: (i + 1) % 3, N: 3}.Seed(7), "each shard its own seed stream")
	}
	assert.Equal(t, uint64(10), covered)
	assert.Equal(t, uint64(7), Shard{N: 1}.Seed(7), "alone, the base seed")
}

func TestExitError(t *testing.T) {
	base := errors.New("most commands failed")
	err := RunFailed(base)
	var ee *ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, ExitRunFailed, ee.Code)
	assert.ErrorIs(t, err, base)
	assert.Equal(t, "exit status 99", (&ExitError{Code: ExitThreshold}).Error())
}

func TestPlanTotals(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlan(&buf, "tairbench test")
	p.Load("keys", "1000 keys", 1000)
	p.Note("a note %d", 1)
	p.Close()
	out := buf.String()
	assert.Contains(t, out, "tairbench test")
	assert.Contains(t, out, "1000 keys")
	assert.Contains(t, out, "a note 1")
}

// TestPlanStops: each run says when it stops: after a time (warm-up
// included), after a count, at its input's end or when interrupted.
func TestPlanStops(t *testing.T) {
	var buf bytes.Buffer
	p := NewPlan(&buf, "tairbench test")
	p.Run("timed", "GET k", "here", engine.Config{Workers: 2, Duration: 2 * time.Second, Warmup: time.Second})
	p.Run("counted", "GET k", "here", engine.Config{Workers: 2, Ops: 500})
	p.Run("open", "GET k", "here", engine.Config{Workers: 2})
	p.RunToEnd("write", "a file", "here", engine.Config{Workers: 2})
	p.RunToEnd("bounded write", "a file", "here", engine.Config{Workers: 2, Ops: 7})
	p.Close()
	out := buf.String()
	for _, want := range []string{"for 3s (1s of warm-up)", "until 500 commands", "closed loop, until interrupted",
		"closed loop, until its input ends", "until 7 commands", "total: no bound: 1 run(s) last until interrupted; the others: about 3s: 5 runs, 3s of timed runs, plus 507 commands bounded by count (about 0s at 100000/s), plus 1 run(s) until their input ends, not counted (their time is the server's)"} {
		assert.Contains(t, out, want)
	}
}
