package redis

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/server"
)

func TestIdentify(t *testing.T) {
	srv, err := server.Start(server.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	defer srv.Close()
	id, err := Identify(context.Background(), endpoint.Target{Addr: srv.Addr(), Timeout: time.Second})
	require.NoError(t, err)
	assert.Equal(t, EmbeddedServerName, id.Name)
	assert.True(t, id.Embedded, "the embedded server over the network is still not Tair")
	assert.NotEmpty(t, id.Version)

	redis := ParseIdentity("# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n")
	assert.Equal(t, "redis", redis.Name)
	assert.Equal(t, "7.0.15", redis.Version)
	assert.False(t, redis.Embedded)
	assert.Equal(t, "tairroaring", parseModules("# Modules\r\nmodule:name=tairroaring,ver=10001,api=1\r\n")[0].Name)

	_, err = Identify(context.Background(), endpoint.Target{Addr: "127.0.0.1:1", Timeout: time.Second})
	assert.Error(t, err)
}
