package elastic

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/fts"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/testenv"
)

// TestCheckNamesARedisPort: --es pointed at a redis-server is named as
// not HTTP at once, not reported as a bare EOF or after a wait.
func TestCheckNamesARedisPort(t *testing.T) {
	r := testenv.StartRedis(t)
	e, err := New(fts.Options{Target: endpoint.Target{Addr: "http://" + r.Addr, Timeout: 2 * time.Second}, Index: "x"})
	require.NoError(t, err)
	start := time.Now()
	err = e.Check(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "elasticsearch at http://"+r.Addr+" cannot be used: ")
	assert.Contains(t, err.Error(), "a Redis port?")
	assert.Less(t, time.Since(start), 2*time.Second, "named before --timeout")
}
