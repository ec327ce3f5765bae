package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/testenv"
)

func TestTLS(t *testing.T) {
	r, f := testenv.StartRedisTLS(t)
	tp := strconv.Itoa(r.TLSPort)
	res := runCLI(context.Background(), "redis", "-port", tp, "--tls", "--tls-ca", f.CA, "-c", "200", "-p", "2", "-command", "SET k __DATA__", "-q")
	require.Equal(t, 0, res.code, res.err)
	assert.Equal(t, int64(200), testenv.CommandCalls(t, r.Addr, "set"))

	res = runCLI(context.Background(), "redis", "-port", tp, "--tls", "-c", "10", "-command", "PING", "-q")
	assert.Equal(t, ExitError1, res.code)
	assert.Contains(t, res.err, "TLS handshake with 127.0.0.1:"+tp+" failed")
	assert.Contains(t, res.err, "unknown authority")

	res = runCLI(context.Background(), "redis", "-port", tp, "--tls-insecure", "-c", "10", "-command", "PING", "-q")
	assert.Equal(t, 0, res.code, res.err)
}

func TestRESP3DBAndOutputFiles(t *testing.T) {
	r := testenv.StartRedis(t)
	dir := t.TempDir()
	csvPath, hgrmPath := filepath.Join(dir, "s.csv"), filepath.Join(dir, "l.hgrm")
	res := runCLI(context.Background(), "redis", "-port", port(r), "--resp", "3", "--db", "3", "-c", "500", "-p", "2",
		"-command", "HSET h f-__RAND__ v", "-r", "50", "-q", "--csv", csvPath, "--hgrm", hgrmPath)
	require.Equal(t, 0, res.code, res.err)
	assert.Contains(t, testenv.Do(t, r.Addr, "INFO", "keyspace"), "db3:keys=1")
	csv, err := os.ReadFile(csvPath)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	assert.Equal(t, "second,ops,requests,errors,transport_errors,connect_failures,ops_per_sec,mean_us,p50_us,p99_us,max_us", lines[0])
	assert.True(t, strings.HasPrefix(lines[len(lines)-1], "total,500,500,0,"), lines[len(lines)-1])
	hgrm, err := os.ReadFile(hgrmPath)
	require.NoError(t, err)
	assert.Contains(t, string(hgrm), "Value")
	assert.Contains(t, string(hgrm), "Percentile")
}
