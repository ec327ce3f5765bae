package monitor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

func args(c Command) []string {
	out := make([]string, len(c.Args))
	for i, a := range c.Args {
		out[i] = string(a)
	}
	return out
}

func TestParse(t *testing.T) {
	in := "OK\n" +
		"1339518083.107412 [0 127.0.0.1:60866] \"keys\" \"*\"\n" +
		"+1339518087.877697 [3 lua] \"set\" \"k\\\"ey\" \"a\\x00b\\r\\n\\\\\"\n" +
		"[ proxy47 ] 1764031576.603223 [0 172.16.10.147:39564] \"GET\" \"key1\"\r\n" +
		"\n" +
		"1339518090.000001 [15 unix:/tmp/redis.sock] \"PING\"\n"
	p := NewParser(strings.NewReader(in))
	var c Command
	for _, want := range []struct {
		line   int64
		at     time.Time
		db     uint32
		client string
		args   []string
	}{
		{2, time.Unix(1339518083, 107412000), 0, "127.0.0.1:60866", []string{"keys", "*"}},
		{3, time.Unix(1339518087, 877697000), 3, "lua", []string{"set", `k"ey`, "a\x00b\r\n\\"}},
		{4, time.Unix(1764031576, 603223000), 0, "172.16.10.147:39564", []string{"GET", "key1"}},
		{6, time.Unix(1339518090, 1000), 15, "unix:/tmp/redis.sock", []string{"PING"}},
	} {
		require.NoError(t, p.Next(&c))
		assert.Equal(t, want.line, p.Line())
		assert.True(t, want.at.Equal(c.Time), "%v", c.Time)
		assert.Equal(t, want.db, c.DB)
		assert.Equal(t, want.client, string(c.Client))
		assert.Equal(t, want.args, args(c))
	}
	assert.ErrorIs(t, p.Next(&c), io.EOF)
}

// Every line that does not parse is refused with its number and why; the
// parser goes on with the next line.
func TestParseRefusals(t *testing.T) {
	for _, tc := range []struct{ line, why string }{
		{`hello`, "no time, [db client] and command"},
		{`12.5 [0 a] "x"`, `"12.5" is not a time (seconds.microseconds)`},
		{`1339518083.107412 "x"`, "no [db client] after the time"},
		{`1339518083.107412 [0 a "x"`, "an unclosed [db client]"},
		{`1339518083.107412 [x a] "x"`, "[x a] is not [db client]"},
		{`1339518083.107412 [0 a]`, "no command after [db client]"},
		{`1339518083.107412 [0 a] x`, "argument 1 does not start with a quote"},
		{`1339518083.107412 [0 a] "x`, "argument 1 has no closing quote"},
		{`1339518083.107412 [0 a] "x"y`, "argument 1 runs on after its closing quote"},
		{`1339518083.107412 [0 a] "\xZZ"`, `\xZZ is not a hex byte`},
		{`1339518083.107412 [0 a] "\x4`, `a \x escape cut short`},
		{`[ proxy 1339518083.107412 [0 a] "x"`, ""},
	} {
		p := NewParser(strings.NewReader(tc.line + "\n1339518083.107412 [0 a] \"ok\"\n"))
		var c Command
		err := p.Next(&c)
		var le *LineError
		require.ErrorAs(t, err, &le, tc.line)
		assert.Equal(t, int64(1), le.Line)
		assert.Contains(t, err.Error(), "MONITOR line 1: "+tc.why, tc.line)
		require.NoError(t, p.Next(&c), "the next line parses")
		assert.Equal(t, []string{"ok"}, args(c))
	}
}

// What a real redis-server's MONITOR prints (through redis-cli) parses back
// into the arguments sent, binary bytes and quotes included.
func TestParseRealMonitor(t *testing.T) {
	r := testenv.StartRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "redis-cli", "-p", fmt.Sprint(r.Port), "monitor")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	lines := bufio.NewReader(out)
	first, err := lines.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "OK\n", first, "MONITOR is on")
	sent := [][]string{{"SET", "k:1", "v \"quoted\"\n\x00\xff"}, {"HSET", "h", "f", "é"}, {"GET", "k:1"}}
	for _, a := range sent {
		testenv.Do(t, r.Addr, a...)
	}
	p := NewParser(lines)
	var c Command
	for _, want := range sent {
		require.NoError(t, p.Next(&c))
		assert.Equal(t, want, args(c))
	}
}

func FuzzParse(f *testing.F) {
	f.Add("1339518083.107412 [0 127.0.0.1:60866] \"set\" \"k\\\"ey\" \"a\\x00b\"\n")
	f.Add("[ p ] +1.000001 [1 lua] \"\\\\\"\n")
	f.Fuzz(func(t *testing.T, in string) {
		p := NewParser(strings.NewReader(in))
		var c Command
		for i := 0; i < 100; i++ {
			err := p.Next(&c)
			var le *LineError
			if err != nil && !errors.As(err, &le) {
				return
			}
		}
	})
}

// BenchmarkParse is MONITOR lines parsed per second on one core (the bar
// of make bench-replay: 500,000 a second).
func BenchmarkParse(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&sb, "1700000000.%06d [0 127.0.0.1:%d] \"SET\" \"user:%d:cart\" \"value-%d-\\x00\\xff-abcdefghij\"\n", i%1000000, 40000+i%50, i, i)
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var c Command
	lines := 0
	for i := 0; i < b.N; i++ {
		p := NewParser(strings.NewReader(text))
		for p.Next(&c) == nil {
			lines++
		}
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
}
