package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// rawSession sends commands on one connection and returns each raw reply,
// so that replies can be compared byte for byte.
type rawSession struct {
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawSession {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return &rawSession{c: c, r: bufio.NewReader(c)}
}

func (s *rawSession) do(t *testing.T, args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	_ = s.c.SetDeadline(time.Now().Add(5 * time.Second))
	_, err := s.c.Write([]byte(b.String()))
	require.NoError(t, err)
	return s.reply(t)
}

func (s *rawSession) reply(t *testing.T) string {
	line, err := s.r.ReadString('\n')
	require.NoError(t, err)
	switch line[0] {
	case '$':
		var n int
		fmt.Sscanf(line[1:], "%d", &n)
		if n < 0 {
			return line
		}
		buf := make([]byte, n+2)
		_, err := io.ReadFull(s.r, buf)
		require.NoError(t, err)
		return line + string(buf)
	case '*':
		var n int
		fmt.Sscanf(line[1:], "%d", &n)
		out := line
		for i := 0; i < n; i++ {
			out += s.reply(t)
		}
		return out
	}
	return line
}

// TestDifferentialWithRedis runs the generic commands against redis-server
// and the embedded server and compares the raw replies.
func TestDifferentialWithRedis(t *testing.T) {
	r := testenv.StartRedis(t, "--requirepass", "pw")
	s, err := Start(Config{Password: "pw"})
	require.NoError(t, err)
	defer s.Close()
	script := [][]string{
		{"PING"},
		{"GET", "k"},
		{"AUTH", "wrong"},
		{"AUTH", "pw"},
		{"PING"}, {"PING", "hello"}, {"ECHO", "x y"},
		{"SET", "k", "v1"}, {"GET", "k"}, {"SET", "k", "v2", "NX"}, {"SET", "k", "v2", "XX"}, {"GET", "k"},
		{"SET", "k2", ""}, {"GET", "k2"}, {"SET", "k"}, {"GET"}, {"SET", "k", "v", "BOGUS"},
		{"EXISTS", "k", "k2", "nope", "k"}, {"DEL", "k2", "nope"}, {"EXISTS", "k2"}, {"TYPE", "k"}, {"TYPE", "nope"},
		{"DBSIZE"},
		{"SELECT", "1"}, {"GET", "k"}, {"SET", "k", "one"}, {"DBSIZE"}, {"SELECT", "99"}, {"SELECT", "x"}, {"SELECT", "0"},
		{"MULTI"}, {"SET", "t", "1"}, {"GET", "t"}, {"EXEC"},
		{"MULTI"}, {"SET", "t", "2"}, {"DISCARD"}, {"GET", "t"},
		{"MULTI"}, {"SET", "t"}, {"GET", "t"}, {"EXEC"},
		{"MULTI"}, {"NOSUCHCMD", "a"}, {"EXEC"},
		{"MULTI"}, {"MULTI"}, {"DISCARD"},
		{"EXEC"}, {"DISCARD"},
		{"MULTI"}, {"SET", "w", "x"}, {"SELECT", "1"}, {"GET", "k"}, {"SELECT", "0"}, {"EXEC"},
		{"FLUSHDB"}, {"DBSIZE"}, {"SELECT", "1"}, {"DBSIZE"}, {"FLUSHALL"}, {"DBSIZE"}, {"SELECT", "0"},
		{"NOSUCHCMD"},
		{"AUTH", "default", "wrong"},
		{"AUTH", "a", "b", "c"},
	}
	rs, es := dialRaw(t, r.Addr), dialRaw(t, s.Addr())
	for _, cmd := range script {
		want := rs.do(t, cmd...)
		got := es.do(t, cmd...)
		assert.Equal(t, want, got, "%q", cmd)
	}
	// WRONGTYPE: a bitmap key there, a Redis list key here; the error is the same.
	rs.do(t, "RPUSH", "l", "a")
	es.do(t, "TR.SETBIT", "l", "1", "1")
	assert.Equal(t, rs.do(t, "GET", "l"), es.do(t, "GET", "l"))
}
