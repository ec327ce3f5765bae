package redis

import (
	"context"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/resp"
)

// router sends a worker's commands to the cluster nodes that serve their
// slots, on the worker's Links (one connection per node), following MOVED
// (the shared slot map is patched at once) and ASK (ASKING to the
// importing node, once).
type router struct {
	cs    *clusterState
	links *Links
	// topo is the slot map nodeConns follows; nodeConns caches Links'
	// connections by node index.
	topo      *topology
	nodeConns []*Conn
	rep       resp.Reply
}

func newRouter(ctx context.Context, t *endpoint.Target, cs *clusterState) router {
	links := NewLinks(ctx, t, cs.stops.For(ctx))
	links.onDialFail = func() { cs.reloadSoon(ctx) }
	return router{cs: cs, links: links}
}

// bind follows the current slot map.
func (r *router) bind() *topology {
	topo := r.cs.cur.Load()
	if topo != r.topo {
		r.topo = topo
		r.nodeConns = append(r.nodeConns[:0], make([]*Conn, len(topo.addrs))...)
	}
	return topo
}

// conn returns the connection to node (an index in the bound map).
func (r *router) conn(node int) (*Conn, error) {
	if c := r.nodeConns[node]; c != nil {
		return c, nil
	}
	c, err := r.links.To(r.topo.addrs[node])
	if err == nil {
		r.nodeConns[node] = c
	}
	return c, err
}

// drop closes a failed connection; the next request dials again.
func (r *router) drop(c *Conn) {
	for i, x := range r.nodeConns {
		if x == c {
			r.nodeConns[i] = nil
		}
	}
	r.links.Drop(c)
}

func (r *router) read(c *Conn, s *engine.Step) error {
	rx := c.BytesRead()
	err := c.Read(&r.rep)
	s.BytesIn += int(c.BytesRead() - rx)
	if err != nil {
		r.drop(c)
	}
	return err
}

func (r *router) write(c *Conn, b []byte, s *engine.Step) error {
	s.BytesOut += len(b)
	err := c.Write(b)
	if err != nil {
		r.drop(c)
	}
	return err
}

// send sends one encoded command of slot to its node under the bound slot
// map and reads its reply into r.rep, following redirections; askAddr,
// when set, is an ASK the command already got. The caller counts the reply.
func (r *router) send(s *engine.Step, slot int, cmd []byte, askAddr string) error {
	topo := r.topo
	node := nodeFor(topo, slot)
	for hop := 0; ; hop++ {
		c, err := r.nodeOrAsk(node, askAddr, s)
		if err != nil {
			return err
		}
		if err = r.write(c, cmd, s); err != nil {
			return err
		}
		if err = r.read(c, s); err != nil {
			return err
		}
		if !r.rep.IsError() || hop >= maxRedirects {
			return nil
		}
		ask, movedSlot, addr, ok := redirect(r.rep.Err)
		switch {
		case !ok:
			return nil
		case ask:
			r.cs.Asked.Add(1)
			askAddr = addr
		default:
			r.cs.moved(movedSlot, addr)
			topo = r.bind()
			node, askAddr = topo.nodeOf(addr), ""
		}
	}
}

// nodeOrAsk is node's connection, or after an ASK the importing node's,
// with ASKING sent.
func (r *router) nodeOrAsk(node int, askAddr string, s *engine.Step) (*Conn, error) {
	if askAddr == "" {
		return r.conn(node)
	}
	c, err := r.links.To(askAddr)
	if err != nil {
		return nil, err
	}
	if err = r.write(c, asking, s); err == nil {
		err = r.read(c, s)
	}
	return c, err
}

// ClusterMap is a Redis Cluster's slot map, loaded once and shared by a
// run's workers; MOVED replies patch it and a failed dial reloads it.
type ClusterMap struct{ cs *clusterState }

// LoadClusterMap reads t's slot map (CLUSTER SLOTS through its seed node).
func LoadClusterMap(ctx context.Context, t endpoint.Target) (*ClusterMap, error) {
	cs := &clusterState{t: t}
	if err := cs.load(ctx); err != nil {
		return nil, err
	}
	return &ClusterMap{cs: cs}, nil
}

// Routing reports what the routing followed (nodes, map loads, MOVED,
// ASK, TRYAGAIN).
func (m *ClusterMap) Routing() *Routing { return m.cs.routing() }

// NewSender returns one worker's slot-aware path for single commands.
func (m *ClusterMap) NewSender(ctx context.Context) *ClusterSender {
	return &ClusterSender{r: newRouter(ctx, &m.cs.t, m.cs)}
}

// ClusterSender sends pre-encoded single commands to the node that serves
// their key, on the worker's own connections (the raw path: no allocation,
// bytes counted), following MOVED and ASK.
type ClusterSender struct{ r router }

// Send sends cmd, one RESP-encoded command whose key is key, and returns
// its reply, valid until the next Send. A non-nil error means the request
// was lost (or, as engine.ConnectError, never sent).
func (c *ClusterSender) Send(s *engine.Step, key, cmd []byte) (*resp.Reply, error) {
	c.r.bind()
	if err := c.r.send(s, KeySlot(key), cmd, ""); err != nil {
		return nil, err
	}
	return &c.r.rep, nil
}

// Close closes the sender's connections.
func (c *ClusterSender) Close() error { return c.r.links.Close() }
