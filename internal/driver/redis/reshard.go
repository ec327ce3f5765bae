package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/events"
)

// clusterNode is one node of CLUSTER NODES.
type clusterNode struct {
	id, addr  string
	master    bool
	connected bool
	slots     []int
}

// clusterNodes reads CLUSTER NODES from the target.
func (a *EventActor) clusterNodes(ctx context.Context) ([]clusterNode, error) {
	c, err := a.dial(ctx, "", 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	text, err := c.DoString("CLUSTER", "NODES")
	if err != nil {
		return nil, fmt.Errorf("CLUSTER NODES: %w", err)
	}
	var out []clusterNode
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		addr, _, _ := strings.Cut(f[1], "@")
		n := clusterNode{id: f[0], addr: addr, master: strings.Contains(f[2], "master"),
			connected: f[7] == "connected" && !strings.Contains(f[2], "handshake")}
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") { // a slot being migrated
				continue
			}
			lo, hi, found := strings.Cut(r, "-")
			a, _ := strconv.Atoi(lo)
			b := a
			if found {
				b, _ = strconv.Atoi(hi)
			}
			for s := a; s <= b; s++ {
				n.slots = append(n.slots, s)
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// reshardPlan finds the event's nodes (by address or ID prefix) and the
// slots to move: the first N the source owns.
func (a *EventActor) reshardPlan(ctx context.Context, e events.Event) (from, to clusterNode, slots []int, masters []clusterNode, err error) {
	if !a.t.Cluster {
		return from, to, nil, nil, errors.New("reshard moves a cluster's slots: the target is not a cluster (--cluster)")
	}
	n, _ := strconv.Atoi(e.Args[0])
	nodes, err := a.clusterNodes(ctx)
	if err != nil {
		return from, to, nil, nil, err
	}
	find := func(name string) (clusterNode, error) {
		for _, nd := range nodes {
			if nd.addr == name || len(name) >= 6 && strings.HasPrefix(nd.id, name) {
				if !nd.master {
					return nd, fmt.Errorf("%s is a replica: slots move between primaries", name)
				}
				return nd, nil
			}
		}
		return clusterNode{}, fmt.Errorf("no cluster node %s (give an address as CLUSTER NODES shows it, or an ID)", name)
	}
	if from, err = find(e.Args[3]); err != nil {
		return
	}
	if to, err = find(e.Args[5]); err != nil {
		return
	}
	if from.id == to.id {
		return from, to, nil, nil, errors.New("reshard from a node to itself moves nothing")
	}
	if len(from.slots) < n {
		return from, to, nil, nil, fmt.Errorf("%s owns %d slots, fewer than the %d to move", from.addr, len(from.slots), n)
	}
	for _, nd := range nodes {
		if nd.master {
			masters = append(masters, nd)
		}
	}
	return from, to, from.slots[:n], masters, nil
}

// reshard moves the slots as redis-cli --cluster reshard does: each slot
// importing on the destination, migrating on the source, its keys moved
// with MIGRATE, then given to the destination on every primary.
func (a *EventActor) reshard(ctx context.Context, e events.Event, issued func()) events.Outcome {
	from, to, slots, masters, err := a.reshardPlan(ctx, e)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	src, err := a.dial(ctx, from.addr, 30*time.Second)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	defer src.Close()
	dst, err := a.dial(ctx, to.addr, 30*time.Second)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	defer dst.Close()
	host, port, _ := net.SplitHostPort(to.addr)
	issued()
	keys := 0
	for _, s := range slots {
		if ctx.Err() != nil {
			return events.Outcome{Err: events.ErrNotSeen, Signals: reshardSignals(0, keys)}
		}
		n, err := moveSlot(src, dst, strconv.Itoa(s), from.id, to.id, host, port)
		keys += n
		if err != nil {
			return events.Outcome{Err: fmt.Errorf("slot %d: %w", s, err), Signals: reshardSignals(0, keys)}
		}
		for _, m := range masters {
			if m.id == from.id || m.id == to.id {
				continue
			}
			if c, err := a.dial(ctx, m.addr, 5*time.Second); err == nil {
				_, _ = c.DoString("CLUSTER", "SETSLOT", strconv.Itoa(s), "NODE", to.id)
				c.Close()
			}
		}
	}
	return events.Outcome{Completed: time.Now(), Reply: fmt.Sprintf("%d slots moved from %s to %s", len(slots), from.addr, to.addr),
		Signals: reshardSignals(len(slots), keys)}
}

// moveSlot moves one slot's keys and ownership; n is the keys it moved.
func moveSlot(src, dst *transport.Conn, slot, fromID, toID, host, port string) (n int, err error) {
	if _, err := dst.DoString("CLUSTER", "SETSLOT", slot, "IMPORTING", fromID); err != nil {
		return 0, fmt.Errorf("SETSLOT IMPORTING: %w", err)
	}
	if _, err := src.DoString("CLUSTER", "SETSLOT", slot, "MIGRATING", toID); err != nil {
		return 0, fmt.Errorf("SETSLOT MIGRATING: %w", err)
	}
	for {
		keys, err := src.DoStrings("CLUSTER", "GETKEYSINSLOT", slot, "100")
		if err != nil {
			return n, fmt.Errorf("GETKEYSINSLOT: %w", err)
		}
		if len(keys) == 0 {
			break
		}
		args := append([]string{"MIGRATE", host, port, "", "0", "10000", "REPLACE", "KEYS"}, keys...)
		if _, err := src.DoString(args...); err != nil {
			return n, fmt.Errorf("MIGRATE: %w", err)
		}
		n += len(keys)
	}
	if _, err := dst.DoString("CLUSTER", "SETSLOT", slot, "NODE", toID); err != nil {
		return n, fmt.Errorf("SETSLOT NODE on the destination: %w", err)
	}
	if _, err := src.DoString("CLUSTER", "SETSLOT", slot, "NODE", toID); err != nil {
		return n, fmt.Errorf("SETSLOT NODE on the source: %w", err)
	}
	return n, nil
}

func reshardSignals(slots, keys int) map[string]string {
	return map[string]string{"slots_moved": strconv.Itoa(slots), "keys_moved": strconv.Itoa(keys)}
}

// checkNewNode refuses an add-node the cluster cannot take: the target
// is no cluster, or the new node is not an empty cluster-enabled server.
func (a *EventActor) checkNewNode(ctx context.Context, addr string) error {
	if !a.t.Cluster {
		return errors.New("add-node joins a cluster: the target is not a cluster (--cluster)")
	}
	m, err := a.info(ctx, addr, "cluster")
	if err != nil {
		return fmt.Errorf("the new node %s: %w", addr, err)
	}
	if m["cluster_enabled"] != "1" {
		return fmt.Errorf("the new node %s is not cluster-enabled (--cluster-enabled yes)", addr)
	}
	c, err := a.dial(ctx, addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	info, err := c.DoString("CLUSTER", "INFO")
	if err != nil {
		return fmt.Errorf("the new node %s: CLUSTER INFO: %w", addr, err)
	}
	if n := infoFields(info)["cluster_known_nodes"]; n != "1" {
		return fmt.Errorf("the new node %s already knows %s nodes: it must be empty (a fresh cluster-enabled server)", addr, n)
	}
	return nil
}

// addNode makes the new node meet the target's node and waits until the
// target lists it connected.
func (a *EventActor) addNode(ctx context.Context, addr string, issued func()) events.Outcome {
	c, err := a.dial(ctx, addr, 5*time.Second)
	if err != nil {
		issued()
		return events.Outcome{Err: err}
	}
	defer c.Close()
	id, err := c.DoString("CLUSTER", "MYID")
	if err != nil {
		issued()
		return events.Outcome{Err: fmt.Errorf("CLUSTER MYID: %w", err)}
	}
	host, port, _ := net.SplitHostPort(a.t.Addr)
	issued()
	reply, err := c.DoString("CLUSTER", "MEET", host, port)
	if err != nil {
		return events.Outcome{Err: fmt.Errorf("CLUSTER MEET: %w", err), Reply: replyText(err)}
	}
	for {
		if nodes, err := a.clusterNodes(ctx); err == nil {
			for _, n := range nodes {
				if n.id == id && n.connected {
					return events.Outcome{Completed: time.Now(), Reply: reply, Signals: map[string]string{"node_id": id}}
				}
			}
		}
		select {
		case <-ctx.Done():
			return events.Outcome{Err: events.ErrNotSeen, Reply: reply}
		case <-time.After(a.Poll):
		}
	}
}
