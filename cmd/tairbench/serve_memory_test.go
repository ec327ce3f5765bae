package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// residentOf reads a process's resident set size from /proc.
func residentOf(t *testing.T, pid int) uint64 {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	require.NoError(t, err)
	pages, err := strconv.ParseUint(strings.Fields(string(raw))[1], 10, 64)
	require.NoError(t, err)
	return pages * uint64(os.Getpagesize())
}

// TestServeUnderAnnouncedBulks repeats the attack on 'tairbench serve'
// (the built binary, so that its own resident memory is measured): 50
// connections each announce a 60,000,000-byte bulk string and send 1 MB of
// it. The server's buffers grow with the data that arrives, not with what
// was announced, and the memory is handed back after the clients leave.
func TestServeUnderAnnouncedBulks(t *testing.T) {
	port := testenv.FreePort(t)
	cmd := exec.Command(binary(t), "serve", "--port", strconv.Itoa(port))
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() }()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
	pid := cmd.Process.Pid
	base := residentOf(t, pid)
	payload := []byte(strings.Repeat("x", 1<<20))
	var conns []net.Conn
	for i := 0; i < 50; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		conns = append(conns, c)
		_, err = c.Write(append([]byte("*1\r\n$60000000\r\n"), payload...))
		require.NoError(t, err)
	}
	time.Sleep(time.Second) // the server reads what was sent
	during := residentOf(t, pid)
	pending := testenv.InfoLine(t, addr, "INFO", "memory", "pending_request_bytes")
	reported := testenv.InfoLine(t, addr, "INFO", "memory", "used_memory_rss")
	t.Logf("resident %d MiB before, %d MiB during (INFO used_memory_rss %s, pending_request_bytes %s)", base>>20, during>>20, reported, pending)
	assert.Less(t, during, uint64(300<<20), "under 300 MB during the attack")
	rss, err := strconv.ParseUint(reported, 10, 64)
	require.NoError(t, err)
	assert.InEpsilon(t, float64(during), float64(rss), 0.25, "INFO reports the real resident size")
	for _, c := range conns {
		c.Close()
	}
	time.Sleep(10 * time.Second)
	after := residentOf(t, pid)
	t.Logf("resident %d MiB 10 s after the clients left", after>>20)
	assert.Less(t, after, uint64(150<<20), "under 150 MB 10 s after")
	left, err := strconv.ParseInt(testenv.InfoLine(t, addr, "INFO", "memory", "pending_request_bytes"), 10, 64)
	require.NoError(t, err)
	assert.LessOrEqual(t, left, int64(64<<10), "every buffer was refunded (what is left is the INFO connection's own)")
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, _ = c.Write([]byte("PING\r\n"))
	line, err := bufio.NewReader(c).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "+PONG\r\n", line, "the server still serves")
}
