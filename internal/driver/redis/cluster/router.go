package cluster

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/resp"
)

// Router sends a worker's commands to the cluster nodes that serve their
// slots, on the worker's Links (one connection per node), following MOVED
// (the shared slot map is patched at once) and ASK (ASKING to the
// importing node, once).
type Router struct {
	// State is the run's shared slot map; Links the worker's connections.
	State *State
	Links *transport.Links
	// Topo is the slot map NodeConns follows; NodeConns caches Links'
	// connections by node index; Rep is the reply buffer.
	Topo      *Topology
	NodeConns []*transport.Conn
	Rep       resp.Reply
}

// YieldTo implements engine.Yielder for the worker the router sends for.
func (r *Router) YieldTo(yield func(time.Time) time.Time) { r.Links.YieldTo(yield) }

// Redials implements engine.Redialer for the worker the router sends for.
func (r *Router) Redials() int { return r.Links.Redials() }

// Redials implements engine.Redialer for the worker that sends through c.
func (c *ClusterSender) Redials() int { return c.r.Redials() }

// YieldTo implements engine.Yielder for the worker that sends through c.
func (c *ClusterSender) YieldTo(yield func(time.Time) time.Time) { c.r.YieldTo(yield) }

// NewRouter returns a worker's router to t's nodes over the run's slot map cs.
func NewRouter(ctx context.Context, t *endpoint.Target, cs *State) Router {
	links := transport.NewLinks(ctx, t, cs.stops.For(ctx))
	links.OnDialFail = func() { cs.reloadSoon(ctx) }
	return Router{State: cs, Links: links}
}

// Bind follows the current slot map.
func (r *Router) Bind() *Topology {
	topo := r.State.Current.Load()
	if topo != r.Topo {
		r.Topo = topo
		r.NodeConns = append(r.NodeConns[:0], make([]*transport.Conn, len(topo.Addrs))...)
	}
	return topo
}

// Conn returns the connection to node (an index in the bound map).
func (r *Router) Conn(node int) (*transport.Conn, error) {
	if c := r.NodeConns[node]; c != nil {
		return c, nil
	}
	c, err := r.Links.To(r.Topo.Addrs[node])
	if err == nil {
		r.NodeConns[node] = c
	}
	return c, err
}

// Drop closes a failed connection; the next request dials again.
func (r *Router) Drop(c *transport.Conn) {
	for i, x := range r.NodeConns {
		if x == c {
			r.NodeConns[i] = nil
		}
	}
	r.Links.Drop(c)
}

func (r *Router) Read(c *transport.Conn, s *engine.Step) error {
	rx := c.BytesRead()
	err := c.Read(&r.Rep)
	s.BytesIn += int(c.BytesRead() - rx)
	if err != nil {
		r.Drop(c)
	}
	return err
}

func (r *Router) Write(c *transport.Conn, b []byte, s *engine.Step) error {
	s.BytesOut += len(b)
	err := c.Write(b)
	if err != nil {
		r.Drop(c)
	}
	return err
}

// Send sends one encoded command of slot to its node under the bound slot
// map and reads its reply into r.rep, following redirections; askAddr,
// when set, is an ASK the command already got. The caller counts the reply.
func (r *Router) Send(s *engine.Step, slot int, cmd []byte, askAddr string) error {
	topo := r.Topo
	node := NodeFor(topo, slot)
	for hop := 0; ; hop++ {
		c, err := r.NodeOrAsk(node, askAddr, s)
		if err != nil {
			return err
		}
		if err = r.Write(c, cmd, s); err != nil {
			return err
		}
		if err = r.Read(c, s); err != nil {
			return err
		}
		if !r.Rep.IsError() || hop >= MaxRedirects {
			return nil
		}
		ask, movedSlot, addr, ok := Redirect(r.Rep.Err)
		switch {
		case !ok:
			return nil
		case ask:
			r.State.Asked.Add(1)
			askAddr = addr
		default:
			r.State.Reassign(movedSlot, addr)
			topo = r.Bind()
			node, askAddr = topo.nodeOf(addr), ""
		}
	}
}

// NodeOrAsk is node's connection, or after an ASK the importing node's,
// with ASKING sent.
func (r *Router) NodeOrAsk(node int, askAddr string, s *engine.Step) (*transport.Conn, error) {
	if askAddr == "" {
		return r.Conn(node)
	}
	c, err := r.Links.To(askAddr)
	if err != nil {
		return nil, err
	}
	if err = r.Write(c, Asking, s); err == nil {
		err = r.Read(c, s)
	}
	return c, err
}

// ClusterMap is a Redis Cluster's slot map, loaded once and shared by a
// run's workers; MOVED replies patch it and a failed dial reloads it.
type ClusterMap struct{ State *State }

// LoadClusterMap reads t's slot map (CLUSTER SLOTS through its seed node).
func LoadClusterMap(ctx context.Context, t endpoint.Target) (*ClusterMap, error) {
	cs := &State{t: t}
	if err := cs.load(ctx); err != nil {
		return nil, err
	}
	return &ClusterMap{State: cs}, nil
}

// Routing reports what the routing followed (nodes, map loads, MOVED,
// ASK, TRYAGAIN).
func (m *ClusterMap) Routing() *Routing { return m.State.Routing() }

// NewSender returns one worker's slot-aware path for single commands.
func (m *ClusterMap) NewSender(ctx context.Context) *ClusterSender {
	return &ClusterSender{r: NewRouter(ctx, &m.State.t, m.State)}
}

// ClusterSender sends pre-encoded single commands to the node that serves
// their key, on the worker's own connections (the raw path: no allocation,
// bytes counted), following MOVED and ASK.
type ClusterSender struct{ r Router }

// Send sends cmd, one RESP-encoded command whose key is key, and returns
// its reply, valid until the next Send. A non-nil error means the request
// was lost (or, as engine.ConnectError, never sent).
func (c *ClusterSender) Send(s *engine.Step, key, cmd []byte) (*resp.Reply, error) {
	c.r.Bind()
	if err := c.r.Send(s, KeySlot(key), cmd, ""); err != nil {
		return nil, err
	}
	return &c.r.Rep, nil
}

// Close closes the sender's connections.
func (c *ClusterSender) Close() error { return c.r.Links.Close() }
