package transport

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/server"
)

// served is a target at an embedded server of the test's own, closed
// when the test ends.
func served(t *testing.T) endpoint.Target {
	t.Helper()
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return endpoint.Target{Addr: srv.Addr(), Timeout: 2 * time.Second}
}
