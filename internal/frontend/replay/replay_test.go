package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/common"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/run/capacity"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/topology"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/pkg/result"
)

// writeTrace writes a trace of conns connections, each sending n commands
// at rate per second in all, drawn in turn from a GET/SET/INCR mix; the
// last connection starts in database 1, and one MONITOR is among them.
func writeTrace(t *testing.T, path string, conns, n int, rate float64) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := trace.NewWriter(f, trace.Meta{Source: "test"})
	require.NoError(t, err)
	gap := time.Duration(float64(time.Second) / rate)
	for i := range conns * n {
		c := uint32(i % conns)
		key := []byte("k:" + strconv.Itoa(i%50))
		var args [][]byte
		switch i % 10 {
		case 0, 1, 2, 3, 4, 5, 6:
			args = [][]byte{[]byte("get"), key}
		case 7, 8:
			args = [][]byte{[]byte("SET"), key, []byte("0123456789")}
		default:
			args = [][]byte{[]byte("incr"), []byte("counter")}
		}
		if i == 5 {
			args = [][]byte{[]byte("MONITOR")}
		}
		db := uint32(0)
		if int(c) == conns-1 {
			db = 1
		}
		require.NoError(t, w.Write(trace.Record{At: time.Duration(i) * gap, Conn: c, DB: db, Args: args}))
	}
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
}

// options are a replay of path against addr.
func options(t *testing.T, addr, path string) Options {
	host, port, _ := strings.Cut(addr, ":")
	p, _ := strconv.Atoi(port)
	tg, err := target.Options{Host: host, Port: p, Protocol: 2, Timeout: 5 * time.Second}.Build()
	require.NoError(t, err)
	return Options{Options: common.Options{}, Target: tg, Trace: path, Speed: 1, MaxMemory: 1 << 30}
}

// TestReplayAgainstRedis: every command the trace holds (but the
// MONITOR) reaches the server, prefixed, each connection in its
// database; the server's own count agrees with the replay's; at speed 2
// the same trace takes half the time and keeps its schedule.
func TestReplayAgainstRedis(t *testing.T) {
	srv := testenv.StartRedis(t)
	path := filepath.Join(t.TempDir(), "t.tbt")
	writeTrace(t, path, 4, 500, 1000) // 2,000 commands over 2 s
	hio, _, errb := harness.Captured("test")
	o := options(t, srv.Addr, path)
	o.KeyPrefix, o.Out.Quiet = "replay:", true
	res, err := Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	assert.Contains(t, errb.String(), "not sent: 1 × MONITOR: it would turn the connection into a feed")
	assert.Contains(t, errb.String(), "1 SELECTs added")
	assert.Equal(t, int64(2000), res.Totals.Ops, "1,999 of the trace's commands and a SELECT")
	assert.Zero(t, res.Totals.Errors)
	require.NotNil(t, res.Server)
	require.NotNil(t, res.Server.Reconciliation)
	assert.True(t, res.Server.Reconciliation.Match, "the server's commandstats: %+v", res.Server.Reconciliation)
	assert.Equal(t, int64(200), testenv.CommandCalls(t, srv.Addr, "incr"))
	assert.Equal(t, "100", testenv.Do(t, srv.Addr, "GET", "replay:counter"), "INCR's key prefixed (the other 100 went to database 1)")
	assert.Equal(t, "0", testenv.Do(t, srv.Addr, "EXISTS", "counter"), "no key without the prefix")
	assert.NotEqual(t, "0", testenv.Do(t, srv.Addr, "DBSIZE"))
	require.NotNil(t, res.Config.Replay)
	assert.Equal(t, int64(1999), res.Config.Replay.Commands-res.Config.Replay.Selects)
	slow := res.DurationMS / 1000

	o.Speed = 2
	res, err = Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	sc := res.Totals.Schedule
	require.NotNil(t, sc)
	assert.Equal(t, "captured", sc.Arrivals)
	assert.InDelta(t, 2000, sc.Rate, 20, "twice the captured 1,000/s")
	assert.Equal(t, int64(2000), sc.Sent, "every command sent, however late (make bench-replay holds the share on schedule)")
	assert.Less(t, res.DurationMS/1000, slow, "the run ends with its last command, sooner at speed 2")
}

// TestReplayPreload: the keys the trace reads and never writes exist
// before it starts, so its reads find them.
func TestReplayPreload(t *testing.T) {
	srv := testenv.StartRedis(t)
	path := filepath.Join(t.TempDir(), "t.tbt")
	var recs []trace.Record
	for i := range 100 {
		recs = append(recs, trace.Record{At: time.Duration(i) * time.Millisecond, Args: testenv.Args(fmt.Sprintf("GET u:%d", i%20))})
	}
	testenv.WriteTrace(t, path, append(recs, trace.Record{At: 100 * time.Millisecond, Args: testenv.Args("SET u:0 abc")}))
	hio, _, errb := harness.Captured("test")
	o := options(t, srv.Addr, path)
	o.Preload, o.Out.Quiet = true, true
	res, err := Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	assert.Contains(t, errb.String(), "preload: 19 keys the trace reads and never writes, each value 3 bytes")
	require.NotNil(t, res.Preload)
	assert.Equal(t, int64(19), res.Preload.Keys)
	assert.Equal(t, []string{"SET {key} __DATA__"}, res.Preload.Templates)
	assert.Equal(t, int64(5), res.Totals.Misses, "u:0 is read five times before its SET")

	// A packet capture's trace knows each value's size from its reply.
	sized := filepath.Join(t.TempDir(), "sized.tbt")
	testenv.WriteTrace(t, sized, []trace.Record{{Args: testenv.Args("GET big"), Reply: trace.ReplyBulk, ReplyLen: 1000},
		{At: time.Millisecond, Args: testenv.Args("GET small")}})
	o.Trace, o.KeyPrefix = sized, "s:"
	_, err = Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	assert.Contains(t, errb.String(), "preload: 2 keys the trace reads and never writes; 1 of them at the size their captured reply had, the others 64 bytes")
	assert.Equal(t, "1000", testenv.Do(t, srv.Addr, "STRLEN", "s:big"))
	assert.Equal(t, "64", testenv.Do(t, srv.Addr, "STRLEN", "s:small"))
}

// TestReplayRefuses: bad input gets one line and nothing is sent.
func TestReplayRefuses(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "t.tbt")
	writeTrace(t, good, 1, 2000, 1000)
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.tbt")
	require.NoError(t, os.WriteFile(cut, data[:len(data)/2], 0o644))
	text := filepath.Join(dir, "monitor.txt")
	require.NoError(t, os.WriteFile(text, []byte("OK\n"), 0o644))
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"speed 0", func(o *Options) { o.Speed = 0 }, "--speed 0: want a number above 0"},
		{"no trace", func(o *Options) { o.Trace = filepath.Join(dir, "none.tbt") }, "no such file"},
		{"not a trace", func(o *Options) { o.Trace = text }, "not a tairbench trace"},
		{"cut short", func(o *Options) { o.Trace = cut }, "the trace ends inside"},
		{"bad --only", func(o *Options) { o.Only = "gets" }, `--only "gets": want reads or writes`},
		{"a cluster", func(o *Options) { o.Target.Cluster = true }, "a replay goes to one server"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := options(t, "127.0.0.1:1", good) // nothing listens: nothing may be sent
			tc.edit(&o)
			hio, _, _ := harness.Captured("test")
			_, err := Run(context.Background(), o, hio)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestReplaySLO: a capacity search over the speed: each step the trace
// from its start at a speed of its own rate, the first at speed 1.
func TestReplaySLO(t *testing.T) {
	srv := testenv.StartRedis(t)
	dir := t.TempDir()
	path, out := filepath.Join(dir, "t.tbt"), filepath.Join(dir, "slo.json")
	writeTrace(t, path, 2, 1000, 1000) // 2,000 commands over 2 s
	slo, err := capacity.ParseSLO("p99<500ms")
	require.NoError(t, err)
	o := options(t, srv.Addr, path)
	o.JSON, o.Out.Quiet = out, true
	o.SLO = &capacity.Options{SLO: slo, Window: 500 * time.Millisecond, Precision: 0.5, MaxSteps: 2, Start: 1}
	hio, _, errb := harness.Captured("test")
	_, err = Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	assert.Regexp(t, `the trace runs at 100[01] commands/s at speed 1`, errb.String())
	doc, err := result.ReadFile(out)
	require.NoError(t, err)
	c, ok := doc.(*result.CapacitySearch)
	require.True(t, ok)
	require.NotEmpty(t, c.Steps)
	assert.InDelta(t, 1000, c.Steps[0].Rate, 1, "speed 1 first")
	require.NotNil(t, c.Steps[0].Run)
	assert.Contains(t, c.Steps[0].Run.Name, "(speed 1)")
}

// TestReplayChecksReplyKinds: where the trace knows each reply's kind (a
// packet capture's), the replay checks it, and says which differed.
func TestReplayChecksReplyKinds(t *testing.T) {
	srv := testenv.StartRedis(t)
	path := filepath.Join(t.TempDir(), "t.tbt")
	testenv.WriteTrace(t, path, []trace.Record{
		{At: 0, Args: testenv.Args("SET a 1"), Reply: trace.ReplyStatus},
		{At: time.Millisecond, Args: testenv.Args("GET a"), Reply: trace.ReplyBulk},
		{At: 2 * time.Millisecond, Args: testenv.Args("GET b"), Reply: trace.ReplyBulk}, // b was set when captured
		{At: 3 * time.Millisecond, Args: testenv.Args("INCR n"), Reply: trace.ReplyInteger},
		{At: 4 * time.Millisecond, Args: testenv.Args("PING")},
	})
	hio, _, errb := harness.Captured("test")
	o := options(t, srv.Addr, path)
	o.Out.Quiet = true
	res, err := Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String())
	rc := res.Config.Replay
	require.NotNil(t, rc)
	assert.Equal(t, int64(4), rc.RepliesChecked, "PING's reply was not captured")
	assert.Equal(t, []result.ReplayDrop{{What: "bulk → null", Count: 1}}, rc.RepliesDiffering)
	assert.Contains(t, res.Warnings, "1 of 4 replies were of another kind than the capture's (1 bulk → null)")
}

// TestReplayThroughAFailover: a trace replayed to the primary the
// Sentinels name while a failover happens in it (#55 under #54's
// events): the connections follow the new primary, the event is scored.
func TestReplayThroughAFailover(t *testing.T) {
	testenv.Integration(t)
	topo, err := topology.Up(topology.Sentinel, t.TempDir(), 0, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = topo.Down() })
	sentinels := topo.Addrs("sentinel")
	path := filepath.Join(t.TempDir(), "t.tbt")
	writeTrace(t, path, 4, 1500, 1000) // 6,000 commands over 6 s
	hio, out, errb := harness.Captured("test")
	o := options(t, sentinels[0], path)
	o.Target.Sentinels, o.Target.MasterName = sentinels, topology.MasterName
	o.Events.Specs = []string{"at=2s failover"}
	o.AllowErrors = true
	res, err := Run(context.Background(), o, hio)
	require.NoError(t, err, errb.String()+out.String())
	require.NotNil(t, res.Events)
	ev := res.Events.Events[0]
	require.Empty(t, ev.Error)
	require.NotNil(t, ev.CompletedS)
	require.NotNil(t, ev.Score)
	last := res.Series[len(res.Series)-2]
	assert.Positive(t, last.Requests-last.Errors, "the replay went on at the new primary")
}
