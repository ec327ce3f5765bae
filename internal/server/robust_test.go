package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// send writes raw bytes and returns what the server answers before it
// closes the connection or goes quiet.
func send(t *testing.T, addr string, payload []byte) string {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	_, _ = c.Write(payload)
	out, _ := io.ReadAll(c)
	return string(out)
}

func TestMalformedInput(t *testing.T) {
	s, err := Start(Config{MaxRequest: 1 << 20})
	require.NoError(t, err)
	defer s.Close()
	tests := []struct {
		name, in, want string
	}{
		{"absurd bulk length", "*1\r\n$2147483647\r\n", "-ERR Protocol error: invalid bulk length"},
		{"absurd array size", "*2147483647\r\n", "-ERR Protocol error: invalid multibulk length"},
		{"not a bulk", "*1\r\n:1\r\n", "-ERR Protocol error: expected '$'"},
		{"bad terminator", "*1\r\n$4\r\nPINGxx", "-ERR Protocol error: bulk string not terminated"},
		{"request above the limit", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000000\r\n", "-ERR Protocol error: invalid bulk length"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Contains(t, send(t, s.Addr(), []byte(tc.in)), tc.want)
		})
	}
	// The server is still healthy.
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr()})
	defer c.Close()
	assert.Equal(t, "PONG", c.Ping(context.Background()).Val())
	// Inline commands work (telnet, redis-cli pipes).
	assert.Equal(t, "+PONG\r\n", send(t, s.Addr(), []byte("PING\r\nQUIT\r\n"))[:7])
}

func TestHugeRequestIsRefusedWithoutBuffering(t *testing.T) {
	s, err := Start(Config{}) // default limit: 64 MiB
	require.NoError(t, err)
	defer s.Close()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	out := send(t, s.Addr(), []byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1073741824\r\n"))
	assert.Contains(t, out, "Protocol error")
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	assert.Less(t, after.HeapAlloc, before.HeapAlloc+(16<<20), "a 1 GB declared request allocates nothing near 1 GB")
}

func TestManyIdleConnectionsAndMaxClients(t *testing.T) {
	s, err := Start(Config{MaxClients: 2000})
	require.NoError(t, err)
	defer s.Close()
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 2000; i++ {
		c, err := net.Dial("tcp", s.Addr())
		require.NoError(t, err)
		conns = append(conns, c)
	}
	require.Eventually(t, func() bool { return s.clients.Load() == 2000 }, 5*time.Second, 10*time.Millisecond)
	out := send(t, s.Addr(), []byte("PING\r\n"))
	assert.Contains(t, out, "max number of clients reached")
	conns[0].Close()
	conns = conns[1:]
	require.Eventually(t, func() bool { return s.clients.Load() == 1999 }, 5*time.Second, 10*time.Millisecond)
	assert.Contains(t, send(t, s.Addr(), []byte("PING\r\nQUIT\r\n")), "+PONG")
}

// TestConcurrentBitmapClients runs SETBIT, GETBIT and BITOP clients at once
// (meant for the race detector) and checks the final cardinalities.
func TestConcurrentBitmapClients(t *testing.T) {
	s, err := Start(Config{})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr(), PoolSize: 32})
	defer c.Close()
	var wg sync.WaitGroup
	const writers, perWriter = 8, 500
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				key := fmt.Sprintf("k%d", i%4)
				assert.NoError(t, c.Do(ctx, "tr.setbit", key, w*perWriter+i, 1).Err())
				assert.NoError(t, c.Do(ctx, "tr.getbit", key, i).Err())
			}
		}()
	}
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				assert.NoError(t, c.Do(ctx, "tr.bitop", fmt.Sprintf("d%d", r), "OR", "k0", "k1", "k2", "k3").Err())
				_, err := c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
					p.Do(ctx, "tr.bitopcard", "AND", "k0", "k1")
					p.Do(ctx, "tr.setbits", "k3", i)
					return nil
				})
				assert.NoError(t, err)
				assert.NoError(t, c.Do(ctx, "info", "memory").Err())
			}
		}()
	}
	wg.Wait()
	total := int64(0)
	for i := 0; i < 4; i++ {
		n, err := c.Do(ctx, "tr.bitcount", fmt.Sprintf("k%d", i)).Int64()
		require.NoError(t, err)
		total += n
	}
	// Writers put offset w*500+i into k(i%4): 4000 bits. The transactions
	// added 0..199 to k3, of which the 150 with i%4 != 3 were new there.
	assert.Equal(t, int64(writers*perWriter+150), total)
	info := c.Info(ctx, "memory").Val()
	assert.True(t, strings.Contains(info, "tairroaring_keys:8"), info)
}

func TestInfoMemoryReflectsBitmaps(t *testing.T) {
	s, c := start(t, Config{})
	_ = s
	ctx := context.Background()
	used := func() int64 {
		var n int64
		for _, l := range strings.Split(c.Info(ctx, "memory").Val(), "\r\n") {
			if strings.HasPrefix(l, "used_memory:") {
				fmt.Sscanf(l, "used_memory:%d", &n)
			}
		}
		return n
	}
	before := used()
	args := []any{"tr.setbits", "big"}
	for i := 0; i < 100000; i++ {
		args = append(args, i*3) // 5 chunks of about 21845 values: bitset containers
	}
	require.NoError(t, c.Do(ctx, args...).Err())
	mid := used()
	assert.Greater(t, mid-before, int64(5*8192), "the bitmap's containers are counted")
	require.NoError(t, c.Do(ctx, "del", "big").Err())
	assert.Less(t, used(), mid)
}

// TestRefusedRequestIsReadNotReset: a request over --max-request is
// refused with the limit named, and the server reads the rest of it before
// it closes, so that the client's write completes and it reads the
// refusal rather than a reset.
func TestRefusedRequestIsReadNotReset(t *testing.T) {
	s, err := Start(Config{MaxRequest: 1024})
	require.NoError(t, err)
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	value := strings.Repeat("x", 4<<20)
	req := fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", len(value), value)
	n, err := c.Write([]byte(req))
	require.NoError(t, err, "the whole request was taken")
	assert.Equal(t, len(req), n)
	reply, err := io.ReadAll(c)
	require.NoError(t, err)
	assert.Contains(t, string(reply), "this server takes at most 1024 bytes a request: tairbench serve --max-request")
}
