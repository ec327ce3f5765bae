package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
	"github.com/tairbench/tairbench/internal/serverstat"
	"github.com/tairbench/tairbench/internal/testenv"
	"github.com/tairbench/tairbench/internal/trace"
)

const monitorText = "OK\n" +
	"1700000000.000001 [0 127.0.0.1:5001] \"SET\" \"user:1:cart\" \"a\\x00b\"\n" +
	"1700000000.250001 [2 127.0.0.1:5002] \"get\" \"user:1:cart\"\n" +
	"not a monitor line\n" +
	"1700000001.000001 [0 127.0.0.1:5001] \"GET\" \"user:1:cart\"\n"

// The conversion keeps each command's time from the first, its
// connection (numbered as they come), database and arguments, and prints
// the mix.
func TestConvert(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "monitor.txt")
	require.NoError(t, os.WriteFile(in, []byte(monitorText), 0o644))
	out := filepath.Join(dir, "t.tbt")
	hio, stdout, _ := harness.Captured("test")
	require.NoError(t, Main(context.Background(), Options{Input: in, Out: out, SkipBad: true}, hio))
	assert.Contains(t, stdout.String(), "3 commands from 2 connections over 1s; 1 lines that did not parse passed over (--skip-bad)")
	assert.Regexp(t, `GET +2 +66\.7 %`, stdout.String())

	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	r, err := trace.NewReader(f)
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, "MONITOR text: "+in, r.Meta().Source)
	assert.True(t, r.Meta().Start.Equal(time.Unix(1700000000, 1000)))
	var rec trace.Record
	for _, want := range []struct {
		at       time.Duration
		conn, db uint32
		args     []string
	}{
		{0, 0, 0, []string{"SET", "user:1:cart", "a\x00b"}},
		{250 * time.Millisecond, 1, 2, []string{"get", "user:1:cart"}},
		{time.Second, 0, 0, []string{"GET", "user:1:cart"}},
	} {
		require.NoError(t, r.Read(&rec))
		assert.Equal(t, want.at, rec.At)
		assert.Equal(t, want.conn, rec.Conn)
		assert.Equal(t, want.db, rec.DB)
		var args []string
		for _, a := range rec.Args {
			args = append(args, string(a))
		}
		assert.Equal(t, want.args, args)
	}
	assert.True(t, errors.Is(r.Read(&rec), io.EOF))
}

// A compressed log reads as the plain one (gzip here).
func TestConvertCompressed(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "monitor.txt.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(monitorText))
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(in, b.Bytes(), 0o644))
	hio, stdout, _ := harness.Captured("test")
	require.NoError(t, Main(context.Background(), Options{Input: in, Out: filepath.Join(dir, "t.tbt"), SkipBad: true}, hio))
	assert.Contains(t, stdout.String(), "3 commands from 2 connections over 1s")
}

// Bad input is refused in one line, and no trace is left behind.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "monitor.txt")
	require.NoError(t, os.WriteFile(in, []byte(monitorText), 0o644))
	empty := filepath.Join(dir, "empty.txt")
	require.NoError(t, os.WriteFile(empty, []byte("OK\n"), 0o644))
	out := filepath.Join(dir, "t.tbt")
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Out: out}, "give --input FILE (redis-cli monitor text, or a memtier --monitor-input file), --pcap FILE, or the server to record"},
		{Options{Input: in, Out: out, Live: &Live{Duration: time.Second}}, "give one source"},
		{Options{Input: in, Out: out, Pcap: in}, "give one source"},
		{Options{Pcap: in, Out: out}, "not a pcap or pcapng file"},
		{Options{Out: out, Live: &Live{}}, "-d must be above 0"},
		{Options{Out: out, Live: &Live{Duration: time.Second, MaxOverhead: -1}}, "--max-overhead must not be negative"},
		{Options{Input: in}, "-o TRACE is required"},
		{Options{Input: filepath.Join(dir, "none.txt"), Out: out}, "no such file"},
		{Options{Input: in, Out: out}, "monitor.txt: MONITOR line 4: \"not\" is not a time (seconds.microseconds) (--skip-bad counts such lines and goes on)"},
		{Options{Input: empty, Out: out}, "empty.txt: no MONITOR command line in it"},
	} {
		hio, _, _ := harness.Captured("test")
		assert.ErrorContains(t, Main(context.Background(), tc.o, hio), tc.want)
		assert.NoFileExists(t, out, "nothing is left when the input is bad")
	}
}

// TestLiveCapture records a real redis-server through MONITOR while a
// client sends to it: every command of that client is in the trace, in
// order, and none of the capture's own INFO; the cost is printed.
func TestLiveCapture(t *testing.T) {
	srv := testenv.StartRedis(t)
	tg, err := target.Options{Host: "127.0.0.1", Port: srv.Port, Protocol: 2, Timeout: 5 * time.Second}.Build()
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "live.tbt")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sent := make(chan int, 1)
	go func() { // starts once MONITOR is on: after the second measured before it
		time.Sleep(1500 * time.Millisecond)
		n := 0
		for ; ctx.Err() == nil && n < 200; n++ {
			testenv.Do(t, srv.Addr, "SET", fmt.Sprintf("k:%d", n), "v")
		}
		sent <- n
	}()
	hio, stdout, stderr := harness.Captured("test")
	require.NoError(t, Main(ctx, Options{Out: out, Live: &Live{Target: tg, Duration: 3 * time.Second}}, hio))
	n := <-sent
	assert.Contains(t, stderr.String(), "server before MONITOR:")
	assert.Contains(t, stdout.String(), "trace written to "+out)
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	r, err := trace.NewReader(f)
	require.NoError(t, err)
	defer r.Close()
	assert.Equal(t, "MONITOR of "+tg.Addr, r.Meta().Source)
	var rec trace.Record
	sets := 0
	for r.Read(&rec) == nil {
		require.NotEqual(t, "INFO", strings.ToUpper(string(rec.Args[0])), "the capture's own INFO is left out")
		if string(rec.Args[0]) == "SET" {
			assert.Equal(t, fmt.Sprintf("k:%d", sets), string(rec.Args[1]), "in order")
			sets++
		}
	}
	assert.Equal(t, n, sets, "every SET the client sent while MONITOR ran")
}

// TestPcapCapture records a real redis-server with tcpdump on loopback
// while MONITOR records it too: the packet capture holds the same
// commands, in order, each with its reply's kind and time.
func TestPcapCapture(t *testing.T) {
	srv := testenv.StartRedis(t)
	bin, err := exec.LookPath("tcpdump")
	require.NoError(t, err, "tcpdump not found: run 'make test' (it installs Debian's tcpdump) or set %s=1 to skip integration tests", testenv.SkipVar)
	dir := t.TempDir()
	pcapFile, monFile, pcapTrace := filepath.Join(dir, "lo.pcap"), filepath.Join(dir, "mon.tbt"), filepath.Join(dir, "pcap.tbt")
	dump := exec.Command(bin, "-i", "lo", "-U", "-Z", "root", "-w", pcapFile, "tcp", "port", strconv.Itoa(srv.Port))
	stderr, err := dump.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, dump.Start())
	t.Cleanup(func() { _ = dump.Process.Kill(); _ = dump.Wait() })
	line, err := bufio.NewReader(stderr).ReadString('\n') // "listening on lo, ..." once it captures
	require.NoError(t, err)
	require.Contains(t, line, "listening on")

	tg, err := target.Options{Host: "127.0.0.1", Port: srv.Port, Protocol: 2, Timeout: 5 * time.Second}.Build()
	require.NoError(t, err)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		time.Sleep(1500 * time.Millisecond) // MONITOR is on after the capture's first second
		for i := range 100 {
			testenv.Do(t, srv.Addr, "SET", fmt.Sprintf("k:%d", i), "v")
			testenv.Do(t, srv.Addr, "GET", fmt.Sprintf("k:%d", i))
			testenv.Do(t, srv.Addr, "INCR", "n")
		}
	}()
	hio, _, _ := harness.Captured("test")
	require.NoError(t, Main(context.Background(), Options{Out: monFile, Live: &Live{Target: tg, Duration: 4 * time.Second}}, hio))
	<-sent
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, dump.Process.Signal(os.Interrupt))
	_ = dump.Wait()

	hio, stdout, _ := harness.Captured("test")
	require.NoError(t, Main(context.Background(), Options{Pcap: pcapFile, Port: uint16(srv.Port), Out: pcapTrace}, hio))
	assert.Contains(t, stdout.String(), "replies matched to their commands")
	kinds := map[string]byte{"SET": trace.ReplyStatus, "GET": trace.ReplyBulk, "INCR": trace.ReplyInteger}
	ofPcap, ofMonitor := commandsOf(t, pcapTrace, kinds), commandsOf(t, monFile, nil)
	assert.Len(t, ofPcap, 300)
	assert.Equal(t, ofMonitor, ofPcap, "the same commands, in the same order, through MONITOR and the packets")
}

// commandsOf reads a trace's SET, GET and INCR commands as text; with
// kinds, each must carry that reply kind and a reply time.
func commandsOf(t *testing.T, path string, kinds map[string]byte) []string {
	_, recs := testenv.ReadTrace(t, path)
	var out []string
	for _, rec := range recs {
		name := strings.ToUpper(string(rec.Args[0]))
		if name != "SET" && name != "GET" && name != "INCR" {
			continue
		}
		if kinds != nil {
			assert.Equal(t, kinds[name], rec.Reply, "%s's reply", name)
			assert.Positive(t, rec.ReplyAfter)
		}
		out = append(out, string(bytes.Join(rec.Args, []byte(" "))))
	}
	return out
}

// TestAnonymize: the trace keeps each key's shape with its ids mapped,
// and none of the values; its metadata says so.
func TestAnonymize(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "monitor.txt"), filepath.Join(dir, "t.tbt")
	require.NoError(t, os.WriteFile(in, []byte(monitorText), 0o644))
	hio, _, _ := harness.Captured("test")
	require.NoError(t, Main(context.Background(), Options{Input: in, Out: out, SkipBad: true, Anonymize: true}, hio))
	meta, recs := testenv.ReadTrace(t, out)
	assert.True(t, meta.Anonymized)
	var got []string
	for _, rec := range recs {
		got = append(got, string(bytes.Join(rec.Args, []byte(" "))))
	}
	assert.Equal(t, []string{"SET user:1:cart xxx", "get user:1:cart", "GET user:1:cart"}, got)
}

// TestOverhead: MONITOR's cost is the rise in the server's CPU time per
// command; an idle server (before or during) gives none to judge.
func TestOverhead(t *testing.T) {
	at := func(s int, cmds, cpu float64) serverstat.Reading {
		r := serverstat.Reading{At: time.Unix(int64(s), 0)}
		r.Set(serverstat.Commands, cmds)
		r.Set(serverstat.CPUSeconds, cpu)
		return r
	}
	before, ok := between(at(0, 0, 1), at(1, 10_000, 1.2))
	require.True(t, ok)
	assert.InDelta(t, 10_000, before.ops, 1e-9)
	assert.InDelta(t, 0.2, before.cores, 1e-9)
	during, _ := between(at(1, 10_000, 1.2), at(2, 20_000, 1.5))
	assert.InDelta(t, 0.5, overhead(before, during), 1e-9, "0.3 cores for the same commands: half as much again")
	assert.Zero(t, overhead(load{}, during), "no commands before: nothing to judge")
	_, ok = between(at(0, 0, 1), serverstat.Reading{At: time.Unix(1, 0)})
	assert.False(t, ok, "a reading without the figures")
}
