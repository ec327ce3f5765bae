package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/stats"
	"github.com/tairbench/tairbench/pkg/result"
)

func TestCheckPaths(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	require.NoError(t, os.WriteFile(existing, []byte("kept"), 0o644))
	fresh := filepath.Join(dir, "new.json")
	cases := []struct {
		path, want string // want: "" when accepted, else part of the error
	}{
		{"", ""},
		{"-", ""},
		{fresh, ""},
		{existing, ""},
		{"/nonexistent-tairbench/dir/x.json", "the folder /nonexistent-tairbench/dir does not exist"},
		{"/proc/x.json", "cannot write /proc/x.json"},
		{filepath.Join(existing, "x.json"), "does not exist"},
	}
	for _, c := range cases {
		err := CheckPaths(c.path)
		if c.want == "" {
			assert.NoError(t, err, c.path)
			continue
		}
		assert.ErrorContains(t, err, c.want, c.path)
	}
	_, err := os.Stat(fresh)
	assert.True(t, os.IsNotExist(err), "the check leaves no new file behind")
	raw, err := os.ReadFile(existing)
	require.NoError(t, err)
	assert.Equal(t, "kept", string(raw), "an existing file is not truncated by the check")
}

// TestProgressLinesEqualTheSeries: the tail prints the seconds no tick
// printed, with the JSON's figures; open-loop lines lead with latency
// from the intended start.
func TestProgressLinesEqualTheSeries(t *testing.T) {
	var buf bytes.Buffer
	tick, tail := ProgressWithTail(harness.IO{Err: &buf})
	f := func(v float64) *float64 { return &v }
	s0 := result.Interval{Second: 0, Ops: 100, OpsPerSec: 100, MeanUS: f(100), P99US: f(200), CorrectedP99US: f(3000)}
	s1 := result.Interval{Second: 1, Ops: 50, OpsPerSec: 50, Errors: 2}
	tick(stats.Progress{Interval: s0})
	tail(&result.Run{Series: []result.Interval{s0, s1}})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2, buf.String())
	assert.Contains(t, lines[0], "p99   3.000 ms from the intended start (service p99   0.200 ms)")
	assert.Contains(t, lines[1], "[   1-2s]")
	assert.Contains(t, lines[1], "replies, no latency recorded in it")
	assert.Contains(t, lines[1], "errors 2 (total 2)")
}

// TestOwnLineNamesAnEmbeddedTarget: a peer's table cannot say that the
// server was tairbench's own, so tairbench's line does; against another
// server it adds nothing.
func TestOwnLineNamesAnEmbeddedTarget(t *testing.T) {
	for _, tc := range []struct {
		tg   *result.Target
		want bool
	}{
		{&result.Target{Addr: "127.0.0.1:7000", InProcess: true}, true},
		{&result.Target{Addr: "10.0.0.5:6379"}, false},
		{nil, false},
	} {
		var out bytes.Buffer
		OwnLine(&out, &out, false, &result.Run{Name: "memtier", Config: result.RunConfig{Target: tc.tg}})
		assert.Equal(t, tc.want, strings.Contains(out.String(), "tairbench: target 127.0.0.1:7000: tairbench's embedded server, not Tair"), out.String())
	}
}

// TestProgressTailNamesAPartialSecond: a run that ended 0.19 s into its
// second second did not run at 20,000 ops/s in it: the line gives the
// ops, the time they took and their rate, as the summary's QPS does.
func TestProgressTailNamesAPartialSecond(t *testing.T) {
	var buf bytes.Buffer
	_, tail := ProgressWithTail(harness.IO{Err: &buf})
	f := func(v float64) *float64 { return &v }
	s0 := result.Interval{Second: 0, Ops: 100_000, OpsPerSec: 100_000, MeanUS: f(100), P99US: f(200)}
	s1 := result.Interval{Second: 1, Ops: 20_000, OpsPerSec: 20_000 / 0.19, SpanS: 0.19, MeanUS: f(100), P99US: f(200)}
	tail(&result.Run{DurationMS: 1190, Series: []result.Interval{s0, s1}})
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2, buf.String())
	assert.Contains(t, lines[0], "100000 ops/s")
	assert.Contains(t, lines[1], "[   1-2s] 20000 ops in 0.19 s (105263/s)")
}
