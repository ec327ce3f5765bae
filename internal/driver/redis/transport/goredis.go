package transport

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/driver/yieldconn"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// NewClient returns a go-redis client for t with a pool of pool
// connections, for drivers that need go-redis's API rather than the raw hot
// path (the TairSearch engine's admin and worker connections). It logs in
// as Dial does, falling back to Tair's single-argument AUTH.
func NewClient(ctx context.Context, t endpoint.Target, pool int) (*goredis.Client, error) {
	quiet()
	t, err := ResolveLogin(ctx, t)
	if err != nil {
		return nil, err
	}
	if len(t.Sentinels) > 0 {
		if t.Addr, err = ResolveMaster(ctx, t); err != nil {
			return nil, err
		}
	}
	l := t.Login()
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	network, address := t.Network()
	o := &goredis.Options{Network: network, Addr: address, Username: l.User, Password: l.Password, DB: t.DB, Protocol: 2, PoolSize: pool,
		MaxRetries: -1, DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout, DisableIdentity: true}
	if t.Protocol == 3 {
		o.Protocol = 3
	}
	if t.TLS != nil {
		cfg, err := t.TLS.Config(t.Addr)
		if err != nil {
			return nil, err
		}
		o.TLSConfig = cfg
	}
	return goredis.NewClient(o), nil
}

// NewYieldingClient returns a go-redis client for one worker (a pool of
// one connection) whose connections' reads yield at the engine's interval
// ends through y (yieldconn), the first and those made again alike.
func NewYieldingClient(ctx context.Context, t endpoint.Target, y *yieldconn.Yield) (*goredis.Client, error) {
	c, err := NewClient(ctx, t, 1)
	if err != nil {
		return nil, err
	}
	c.AddHook(yieldHook{y})
	return c, nil
}

// yieldHook wraps each connection a go-redis client dials (after its TLS)
// with a yieldconn.Conn.
type yieldHook struct{ y *yieldconn.Yield }

func (h yieldHook) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return h.y.Wrap(nc), nil
	}
}

func (yieldHook) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook { return next }

func (yieldHook) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return next
}

// quietLogger drops go-redis's own log lines (a failed dial is logged by
// the pool and then returned as an error, which tairbench reports once).
type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

var quietOnce sync.Once

// quiet silences go-redis's logger before the first go-redis client is made.
func quiet() { quietOnce.Do(func() { goredis.SetLogger(quietLogger{}) }) }

// IsReplyErr tells a server's error reply from go-redis's nil and from a
// failure of the connection.
func IsReplyErr(err error) bool {
	if errors.Is(err, goredis.Nil) {
		return false
	}
	var re goredis.Error
	return errors.As(err, &re)
}
