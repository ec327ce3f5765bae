package replay

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/trace"
)

// rec is a record of a test trace: at ms, on conn, in db, the words.
type rec struct {
	ms   int
	conn uint32
	db   uint32
	cmd  string
}

// traceOf writes the records as a trace.
func traceOf(t testing.TB, recs []rec) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf, trace.Meta{Source: "test"})
	require.NoError(t, err)
	for _, r := range recs {
		var args [][]byte
		for _, a := range strings.Fields(r.cmd) {
			args = append(args, []byte(a))
		}
		require.NoError(t, w.Write(trace.Record{At: time.Duration(r.ms) * time.Millisecond, Conn: r.conn, DB: r.db, Args: args}))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// specs are what a Redis server says of the test's commands.
var specs = Specs{
	"GET":      {Known: true, First: 1, Last: 1, Step: 1, ReadOnly: true},
	"SET":      {Known: true, First: 1, Last: 1, Step: 1, Write: true},
	"MGET":     {Known: true, First: 1, Last: -1, Step: 1, ReadOnly: true},
	"SELECT":   {Known: true},
	"PING":     {Known: true},
	"EVAL":     {Known: true, Movable: true, Write: true},
	"FLUSHALL": {Known: true, Write: true},
	"MONITOR":  {Known: true},
}

// build scans and builds the trace of recs.
func build(t *testing.T, recs []rec, o Options, track bool) (*Schedule, error) {
	t.Helper()
	data := traceOf(t, recs)
	r, err := trace.NewReader(bytes.NewReader(data))
	require.NoError(t, err)
	c, err := Scan(r)
	require.NoError(t, err)
	r, err = trace.NewReader(bytes.NewReader(data))
	require.NoError(t, err)
	return Build(r, c, specs, o, track)
}

// commandsOf reads a connection's commands back, as RESP text.
func commandsOf(s *Schedule, id int) []string {
	cur := s.Source(id)
	var out []string
	for range s.Conns[id].Len() {
		b, op := cur.AppendNext(nil)
		out = append(out, s.Ops[op]+" "+strings.ReplaceAll(string(b), "\r\n", " "))
	}
	return out
}

// TestBuild: each connection's commands in order, at their times over
// the speed, the prefix on every key, a SELECT where a connection was in
// another database, and what is dropped counted with its reason.
func TestBuild(t *testing.T) {
	recs := []rec{
		{0, 1, 0, "set a 1"},
		{10, 2, 3, "get b"},
		{20, 1, 0, "MGET a c"},
		{30, 1, 0, "monitor"},
		{40, 2, 3, "SELECT 0"},
		{50, 2, 0, "get a"},
	}
	s, err := build(t, recs, Options{KeyPrefix: "r:"}, true)
	require.NoError(t, err)
	require.Len(t, s.Conns, 2)
	assert.Equal(t, []string{
		"SET *3 $3 set $3 r:a $1 1 ",
		"MGET *3 $4 MGET $3 r:a $3 r:c ",
	}, commandsOf(s, 0))
	assert.Equal(t, []string{
		"SELECT *2 $6 SELECT $1 3 ",
		"GET *2 $3 get $3 r:b ",
		"SELECT *2 $6 SELECT $1 0 ",
		"GET *2 $3 get $3 r:a ",
	}, commandsOf(s, 1))
	p := s.Pacer(1, 2, 0)
	var due []time.Duration
	for n := range uint64(5) {
		due = append(due, p.Due(n))
	}
	assert.Equal(t, []time.Duration{5 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 25 * time.Millisecond, never}, due, "at speed 2")
	assert.Equal(t, int64(6), s.Commands)
	assert.Equal(t, int64(1), s.Selects)
	assert.Equal(t, 50*time.Millisecond, s.Span)
	assert.Equal(t, []Count{{Name: "MONITOR: it would turn the connection into a feed", N: 1}}, s.Dropped)
	assert.Equal(t, []Unwritten{{Key: "r:b", Command: "GET"}}, s.Unwritten, "a is written; b is only read (and c by a command --preload cannot fill)")
	assert.Equal(t, 1, s.ValueSize)
}

// TestBuildRefuses: what cannot be replayed is refused before anything
// is sent, naming the commands; what can be left out is, counted.
func TestBuildRefuses(t *testing.T) {
	tests := []struct {
		name string
		recs []rec
		o    Options
		want string
	}{
		{"unknown", []rec{{0, 1, 0, "get a"}, {1, 1, 0, "tr.setbit a 1 1"}}, Options{}, "the target does not know TR.SETBIT (1)"},
		{"movable keys under a prefix", []rec{{0, 1, 0, "eval x 0"}}, Options{KeyPrefix: "p:"}, "cannot place its prefix in EVAL (1)"},
		{"nothing left", []rec{{0, 1, 0, "set a 1"}}, Options{Only: Reads}, "none of the trace's commands"},
		{"too large", []rec{{0, 1, 0, "get a"}, {0, 1, 0, "get b"}}, Options{MaxBytes: 30}, "more than 0 MB in memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := build(t, tc.recs, tc.o, false)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	s, err := build(t, []rec{{0, 1, 0, "get a"}, {1, 1, 0, "tr.setbit a 1 1"}, {2, 1, 0, "flushall"}, {3, 1, 0, "set a 2"}},
		Options{SkipUnknown: true, KeyPrefix: "p:", Only: Reads}, false)
	require.NoError(t, err)
	assert.Equal(t, []Count{{Name: "FLUSHALL: it would reach past --key-prefix to live keys", N: 1}, {Name: "SET: --only reads", N: 1},
		{Name: "TR.SETBIT: the target does not know it (--skip-unknown)", N: 1}}, s.Dropped)
	assert.Equal(t, int64(1), s.Commands)
}

// TestOpsAndShards: past MaxOps the rarer commands share Other; a shard
// takes its connections only.
func TestOpsAndShards(t *testing.T) {
	recs := []rec{{0, 0, 0, "get a"}, {1, 1, 0, "get a"}, {2, 2, 0, "set a 1"}, {3, 3, 0, "mget a"}, {4, 4, 0, "ping"}}
	s, err := build(t, recs, Options{MaxOps: 3}, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"GET", "MGET", Other}, s.Ops, "most frequent first, then by name")
	s, err = build(t, recs, Options{Shard: 1, Shards: 2}, false)
	require.NoError(t, err)
	assert.Len(t, s.Conns, 2, "connections 1 and 3")
	assert.Equal(t, int64(2), s.Commands)
}

// TestPacer: the schedule's answers, as the engine asks them.
func TestPacer(t *testing.T) {
	c := &Conn{due: []time.Duration{0, 10 * time.Millisecond, 30 * time.Millisecond}}
	p := Pacer{c: c, speed: 1}
	tests := []struct {
		elapsed time.Duration
		sent    uint64
		wait    time.Duration
		stop    bool
	}{
		{0, 0, 0, false},
		{4 * time.Millisecond, 1, 6 * time.Millisecond, false},
		{40 * time.Millisecond, 2, 0, false},
		{40 * time.Millisecond, 3, 0, true},
	}
	for _, tc := range tests {
		wait, stop := p.Pace(tc.elapsed, tc.sent)
		assert.Equal(t, tc.wait, wait)
		assert.Equal(t, tc.stop, stop)
	}
	assert.Equal(t, never, p.Due(3))
	assert.Equal(t, uint64(2), p.DueBefore(30*time.Millisecond))
	assert.Equal(t, uint64(3), p.DueBefore(never))
	cut := Pacer{c: c, speed: 1, end: 20 * time.Millisecond}
	_, stop := cut.Pace(15*time.Millisecond, 2)
	assert.True(t, stop, "the third is due after the run's end")
}

// TestKeySpecKeys: key positions from COMMAND INFO's first, last, step.
func TestKeySpecKeys(t *testing.T) {
	assert.Equal(t, []int{1}, driver.KeySpec{Known: true, First: 1, Last: 1, Step: 1}.Keys(3))
	assert.Equal(t, []int{1, 2, 3}, driver.KeySpec{Known: true, First: 1, Last: -1, Step: 1}.Keys(4))
	assert.Equal(t, []int{1, 3}, driver.KeySpec{Known: true, First: 1, Last: -1, Step: 2}.Keys(5), "MSET k v k v")
	assert.Nil(t, driver.KeySpec{Known: true}.Keys(2))
}

// TestTranslate: each bitmap command as TairRoaring's, what does not map
// left out with its reason in both directions, other keys untouched.
func TestTranslate(t *testing.T) {
	recs := []rec{
		{0, 1, 0, "SETBIT b 7 1"},
		{1, 1, 0, "GETBIT b 7"},
		{2, 1, 0, "BITCOUNT b"},
		{3, 1, 0, "BITCOUNT b 1 2"},
		{4, 1, 0, "BITCOUNT b 3 9 BIT"},
		{5, 1, 0, "BITCOUNT b -2 -1"},
		{6, 1, 0, "BITPOS b 1"},
		{7, 1, 0, "BITOP OR d b c"},
		{8, 1, 0, "BITOP NOT d b"},
		{9, 1, 0, "BITFIELD b GET u1 7"},
		{10, 1, 0, "BITFIELD b SET u1 8 1"},
		{11, 1, 0, "BITFIELD b INCRBY u8 0 1"},
		{12, 1, 0, "GET b"},
		{13, 1, 0, "DEL b"},
		{14, 1, 0, "GET s"},
	}
	data := traceOf(t, recs)
	read := func(toRoaring bool) ([]string, map[string]int64) {
		r, err := trace.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		keys, err := BitmapKeys(r)
		require.NoError(t, err)
		assert.Equal(t, map[string]bool{"b": true, "c": true, "d": true}, keys)
		r, err = trace.NewReader(bytes.NewReader(data))
		require.NoError(t, err)
		tr := NewTranslator(r, keys, toRoaring)
		var out []string
		var rec trace.Record
		for tr.Read(&rec) == nil {
			out = append(out, string(bytes.Join(rec.Args, []byte(" "))))
		}
		return out, tr.Unmapped
	}
	got, unmapped := read(true)
	assert.Equal(t, []string{"TR.SETBIT b 7 1", "TR.GETBIT b 7", "TR.BITCOUNT b", "TR.BITCOUNT b 8 23", "TR.BITCOUNT b 3 9",
		"TR.BITPOS b 1", "TR.BITOP d OR b c", "TR.GETBIT b 7", "TR.SETBIT b 8 1", "DEL b", "GET s"}, got)
	assert.Equal(t, map[string]int64{
		"BITCOUNT with a range from the end: the string's length is not the bitmap's":                  1,
		"BITOP NOT: Redis complements to the string's last byte, TairRoaring to the bitmap's last bit": 1,
		"BITFIELD beyond one 1-bit GET or SET":                                                         1,
		"GET on a bitmap key: a string command, with no TairRoaring equivalent":                        1,
	}, unmapped)
	orig, unmapped2 := read(false)
	assert.Equal(t, unmapped, unmapped2, "the original leaves out what the translation cannot carry")
	assert.Equal(t, "SETBIT b 7 1", orig[0])
	assert.Len(t, orig, len(got))
}

// BenchmarkCursor: a worker's next command and its schedule, as the
// engine asks them per request: no allocation.
func BenchmarkCursor(b *testing.B) {
	var recs []rec
	for i := range 10_000 {
		recs = append(recs, rec{i, 1, 0, "GET user:" + strconv.Itoa(i%100) + ":cart"})
	}
	data := traceOf(b, recs)
	r, err := trace.NewReader(bytes.NewReader(data))
	require.NoError(b, err)
	c, err := Scan(r)
	require.NoError(b, err)
	r, err = trace.NewReader(bytes.NewReader(data))
	require.NoError(b, err)
	s, err := Build(r, c, specs, Options{KeyPrefix: "r:"}, false)
	require.NoError(b, err)
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	b.ResetTimer()
	var cur *Cursor
	var p Pacer
	for i := range b.N {
		if i%10_000 == 0 {
			cur, p = s.Source(0), s.Pacer(0, 2, 0)
		}
		_, _ = p.Pace(time.Duration(i), uint64(i%10_000))
		buf, _ = cur.AppendNext(buf[:0])
		cur.Reply(':', false)
	}
}
