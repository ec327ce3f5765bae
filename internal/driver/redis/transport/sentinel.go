package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/pkg/resp"
)

// sentinelWait bounds each question to one Sentinel.
const sentinelWait = 2 * time.Second

// ResolveMaster asks t's Sentinels, in order, for the address of the
// primary they know as t.MasterName; the first that names one wins.
func ResolveMaster(ctx context.Context, t endpoint.Target) (string, error) {
	var errs []string
	for _, s := range t.Sentinels {
		addr, err := askSentinel(ctx, s, t.MasterName, min(t.RequestTimeout(), sentinelWait))
		if err == nil {
			return addr, nil
		}
		errs = append(errs, err.Error())
	}
	return "", fmt.Errorf("no Sentinel named the primary %q: %s", t.MasterName, strings.Join(errs, "; "))
}

// askSentinel asks one Sentinel for the primary's address.
func askSentinel(ctx context.Context, addr, name string, timeout time.Duration) (string, error) {
	c, err := dial(ctx, endpoint.Target{Addr: addr, Timeout: timeout, Protocol: 2}, nil)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if err := c.Write(resp.AppendCommand(nil, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)); err != nil {
		return "", fmt.Errorf("sentinel %s: %w", addr, err)
	}
	var rep resp.Reply
	args, err := c.r.ReadStrings(nil, &rep)
	switch {
	case err != nil:
		return "", fmt.Errorf("sentinel %s: %w", addr, err)
	case rep.IsError():
		return "", fmt.Errorf("sentinel %s: %s", addr, rep.Err)
	case len(args) != 2:
		return "", fmt.Errorf("sentinel %s does not know %q", addr, name)
	}
	return net.JoinHostPort(string(args[0]), string(args[1])), nil
}

// FollowsTopology says whether a reply's error means the connection
// reached a server that is no longer (or not yet) the primary: READONLY
// (a replica now), LOADING (a restarted server), MASTERDOWN.
func FollowsTopology(msg []byte) bool {
	for _, p := range [][]byte{[]byte("READONLY"), []byte("LOADING"), []byte("MASTERDOWN")} {
		if len(msg) >= len(p) && string(msg[:len(p)]) == string(p) {
			return true
		}
	}
	return false
}

// Retryable says whether a request that got this error reply is sent
// again under a retry policy: the server is not (or not yet) the
// primary, or a cluster's slot is moving or down.
func Retryable(msg []byte) bool {
	if FollowsTopology(msg) {
		return true
	}
	for _, p := range []string{"TRYAGAIN", "CLUSTERDOWN"} {
		if len(msg) >= len(p) && string(msg[:len(p)]) == p {
			return true
		}
	}
	return false
}

// errNoSentinelTarget is the error of a Sentinel target without a name.
var errNoSentinelTarget = errors.New("a Sentinel target needs its master name")

// Switches counts the Sentinels' announcements (+switch-master) that the
// primary of a master name moved: a worker that follows it drops its
// connection when the count changes, as a Sentinel-aware client does, and
// asks the Sentinels again.
type Switches struct{ n atomic.Int64 }

// Count is how many switches were announced so far.
func (s *Switches) Count() int64 { return s.n.Load() }

// WatchSwitches subscribes to +switch-master on t's Sentinels (the first
// that accepts; the next when it fails) until ctx ends.
func WatchSwitches(ctx context.Context, t endpoint.Target) *Switches {
	s := &Switches{}
	go func() {
		for i := 0; ctx.Err() == nil; i++ {
			s.watch(ctx, t.Sentinels[i%len(t.Sentinels)], t.MasterName)
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return s
}

// watch follows one Sentinel's announcements until it fails or ctx ends.
func (s *Switches) watch(ctx context.Context, sentinel, name string) {
	quiet()
	c := goredis.NewClient(&goredis.Options{Addr: sentinel, Protocol: 2, DisableIdentity: true, MaxRetries: -1,
		DialTimeout: sentinelWait, ReadTimeout: -1})
	defer c.Close()
	sub := c.Subscribe(ctx, "+switch-master")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription's confirmation
		return
	}
	for {
		m, err := sub.ReceiveMessage(ctx)
		if err != nil {
			return
		}
		// "NAME OLD-IP OLD-PORT NEW-IP NEW-PORT"
		if f := strings.Fields(m.Payload); len(f) > 0 && f[0] == name {
			s.n.Add(1)
		}
	}
}
