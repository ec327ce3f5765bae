package target

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/frontend/harness"
)

func TestBuild(t *testing.T) {
	base := Options{Host: "127.0.0.1", Port: 6379, Protocol: 2, Timeout: time.Second}
	cases := []struct {
		name string
		edit func(*Options)
		addr string
		tls  bool
		err  string
	}{
		{"host and port", func(*Options) {}, "127.0.0.1:6379", false, ""},
		{"host:port wins", func(o *Options) { o.Host = "db:7000" }, "db:7000", false, ""},
		{"TLS implied by a CA", func(o *Options) { o.TLSCA = "ca.pem" }, "127.0.0.1:6379", true, ""},
		{"TLS asked", func(o *Options) { o.TLS = true }, "127.0.0.1:6379", true, ""},
		{"bad protocol names --resp", func(o *Options) { o.Protocol = 4 }, "", false, "--resp must be 2 or 3, got 4"},
		{"negative db names --db", func(o *Options) { o.DB = -1 }, "", false, "--db must not be negative, got -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base
			c.edit(&o)
			tg, err := o.Build()
			if c.err != "" {
				assert.EqualError(t, err, c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.addr, tg.Addr)
			assert.Equal(t, c.tls, tg.TLS != nil)
			assert.False(t, tg.InProcess)
		})
	}
	t.Setenv("TAIRBENCH_PASSWORD", "from-env")
	tg, err := base.Build()
	require.NoError(t, err)
	assert.Equal(t, "from-env", tg.Password, "an empty --password reads the environment")
}

func TestOpenDryStartsNothing(t *testing.T) {
	var errOut bytes.Buffer
	io := harness.IO{Err: &errOut}
	tg, stop, err := Open(io, Options{Host: "127.0.0.1", Port: 6379, Protocol: 2, Embedded: true}, true)
	require.NoError(t, err)
	defer stop()
	assert.True(t, tg.InProcess, "marked as in this process, as it would be")
	assert.Equal(t, "127.0.0.1:6379", tg.Addr, "no server started, no address taken")
	assert.Empty(t, errOut.String())
	assert.Equal(t, "tairbench's embedded server (would start in this process; not Tair)", Dry(tg.Addr, true))
	assert.Equal(t, "db:6379", Dry(" db:6379 ", false))
}

func TestResolveStartsTheEmbeddedServer(t *testing.T) {
	var errOut bytes.Buffer
	tg, stop, err := Resolve(harness.IO{Err: &errOut}, Options{Host: "127.0.0.1", Port: 6379, Protocol: 2, Embedded: true, Auth: "pw"})
	require.NoError(t, err)
	assert.True(t, tg.InProcess)
	assert.Contains(t, errOut.String(), "tairbench's embedded server, not Tair, listening on "+tg.Addr)
	c, err := net.DialTimeout("tcp", tg.Addr, time.Second)
	require.NoError(t, err, "the server answers")
	_ = c.Close()
	stop()
	_, err = net.DialTimeout("tcp", tg.Addr, time.Second)
	assert.Error(t, err, "stopped")

	tg, stop, err = Resolve(harness.IO{Err: &errOut}, Options{Host: "db", Port: 7000, Protocol: 2})
	require.NoError(t, err)
	stop()
	assert.Equal(t, "db:7000", tg.Addr, "a remote target is left as it is")
}

func TestHint(t *testing.T) {
	ue := &redis.UnsupportedError{Addr: "a:1", Command: "TR.SETBITS", Module: "TairRoaring"}
	err := Hint(fmt.Errorf("suite: %w", ue))
	assert.ErrorContains(t, err, "--embedded runs tairbench's embedded server")
	assert.ErrorAs(t, err, &ue)
	other := errors.New("refused")
	assert.Equal(t, other, Hint(other))
	assert.NoError(t, Hint(nil))
}
