package redis

import (
	"context"
	"errors"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/endpoint"
)

// NewClusterClient returns a go-redis cluster client of one connection per
// node for t (already resolved with ResolveLogin), checked with a PING.
func NewClusterClient(ctx context.Context, t endpoint.Target) (*goredis.ClusterClient, error) {
	o, err := clusterOptionsFor(t)
	if err != nil {
		return nil, err
	}
	quiet()
	cl := goredis.NewClusterClient(o)
	if err := cl.Ping(ctx).Err(); err != nil {
		cl.Close()
		return nil, fmt.Errorf("cluster %v: %w", o.Addrs, err)
	}
	return cl, nil
}

func clusterOptionsFor(t endpoint.Target) (*goredis.ClusterOptions, error) {
	l := t.Login()
	o := &goredis.ClusterOptions{
		Addrs:        t.ClusterAddrs,
		Username:     l.User,
		Password:     l.Password,
		Protocol:     2,
		PoolSize:     1,
		MinIdleConns: 1,
		MaxRetries:   -1,
		ReadTimeout:  t.Timeout,
		WriteTimeout: t.Timeout,
		DialTimeout:  t.Timeout,
	}
	if len(o.Addrs) == 0 {
		o.Addrs = []string{t.Addr}
	}
	if t.Protocol == 3 {
		o.Protocol = 3
	}
	if t.TLS != nil {
		cfg, err := t.TLS.Config(o.Addrs[0])
		if err != nil {
			return nil, err
		}
		o.TLSConfig = cfg
	}
	return o, nil
}

// Outcome classifies a go-redis command's result: a miss (a nil reply or
// an empty array), an error reply from the server, or a failure of the
// connection (lost: the command's fate is unknown).
func Outcome(c goredis.Cmder) (miss bool, reply, lost error) {
	err := c.Err()
	switch {
	case errors.Is(err, goredis.Nil):
		return true, nil, nil
	case isReplyErr(err):
		return false, err, nil
	case err != nil:
		return false, nil, err
	}
	if cmd, ok := c.(*goredis.Cmd); ok {
		if v, ok := cmd.Val().([]any); ok && len(v) == 0 {
			return true, nil, nil
		}
	}
	return false, nil, nil
}

func isReplyErr(err error) bool {
	if errors.Is(err, goredis.Nil) {
		return false
	}
	var re goredis.Error
	return errors.As(err, &re)
}
