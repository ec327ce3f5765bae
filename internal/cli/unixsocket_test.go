package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

// TestUnixSocket: redis-benchmark's -s and memtier's --unix-socket reach
// redis-server over its Unix socket, server statistics included.
func TestUnixSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "redis.sock")
	r := testenv.StartRedis(t, "--unixsocket", sock, "--unixsocketperm", "700")
	res := runCLI(context.Background(), "redis-benchmark", "-s", sock, "-t", "set", "-n", "2000", "-c", "4", "-q")
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, res.out, "server counted 2000: match")
	res = runCLI(context.Background(), "memtier", "--unix-socket", sock, "-c", "2", "-t", "1", "-n", "500", "--ratio=1:1", "--hide-histogram")
	require.Equal(t, 0, res.code, res.err)
	assert.Equal(t, int64(2000+500), testenv.CommandCalls(t, r.Addr, "set"))
	res = runCLI(context.Background(), "redis", "-h", "unix:"+sock, "-c", "100", "-command", "SET k v", "-q")
	require.Equal(t, 0, res.code, res.err)
	assert.Equal(t, int64(2600), testenv.CommandCalls(t, r.Addr, "set"), "tairbench redis -h unix:PATH too")
}
