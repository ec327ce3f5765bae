package server

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

func TestPendingBudgetClosesTheGreedyClient(t *testing.T) {
	s, err := Start(Config{Addr: "127.0.0.1:0", MaxPending: 4 << 20})
	require.NoError(t, err)
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr())
	require.NoError(t, err)
	defer c.Close()
	go func() {
		_, _ = c.Write([]byte("*1\r\n$60000000\r\n"))
		_, _ = c.Write([]byte(strings.Repeat("x", 8<<20)))
	}()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(line, "-ERR Protocol error: too much request data pending on the server"), line)
	assert.Contains(t, line, "--max-pending", "the refusal names its limit's flag")
	assert.Eventually(t, func() bool { return s.pending.used.Load() == 0 }, 2*time.Second, 10*time.Millisecond, "the closed client's buffer is refunded")
}

// TestUnauthenticatedLimitsLikeRedis sends the same bytes to redis-server
// and to the embedded server, both with a password: a client that has not
// logged in may not announce large requests.
func TestUnauthenticatedLimitsLikeRedis(t *testing.T) {
	r := testenv.StartRedis(t, "--requirepass", "pw")
	s, err := Start(Config{Addr: "127.0.0.1:0", Password: "pw"})
	require.NoError(t, err)
	defer s.Close()
	for _, input := range []string{"*1\r\n$60000000\r\n", "*100000\r\n", "*2\r\n$4\r\nAUTH\r\n$20000\r\n"} {
		for _, addr := range []string{r.Addr, s.Addr()} {
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			_, err = c.Write([]byte(input))
			require.NoError(t, err)
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, err := bufio.NewReader(c).ReadString('\n')
			c.Close()
			require.NoError(t, err, "%s %q", addr, input)
			want := "-ERR Protocol error: unauthenticated bulk length\r\n"
			if strings.HasPrefix(input, "*100000") {
				want = "-ERR Protocol error: unauthenticated multibulk length\r\n"
			}
			assert.Equal(t, want, line, "%s %q", addr, input)
		}
	}
	// Once logged in, the limits are the server's own.
	c, err := net.Dial("tcp", s.Addr())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte("*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$20000\r\n" + strings.Repeat("v", 20000) + "\r\n"))
	require.NoError(t, err)
	br := bufio.NewReader(c)
	for i := 0; i < 2; i++ {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		assert.Equal(t, "+OK\r\n", line)
	}
}

func TestInfoReportsRealResidentSize(t *testing.T) {
	s, c := start(t, Config{})
	_ = s
	rss := testenv.InfoLine(t, s.Addr(), "INFO", "memory", "used_memory_rss")
	require.NotEmpty(t, rss)
	assert.NotEqual(t, "0", rss)
	_ = c
}
