package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/target"
)

// SlotCount is the number of hash slots of a Redis Cluster.
const SlotCount = 16384

// crcTable is CRC16/XMODEM (polynomial 0x1021), Redis Cluster's key hash.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

func crc16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crcTable[byte(c>>8)^x]
	}
	return c
}

// KeySlot is the cluster hash slot of key: CRC16 of the key, or of its hash
// tag (what is between the first '{' and the next '}', when not empty),
// modulo 16384.
func KeySlot(key []byte) int {
	if s := bytes.IndexByte(key, '{'); s >= 0 {
		if e := bytes.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	return int(crc16(key) & (SlotCount - 1))
}

// keyArg is the index of a command's first key among its arguments: 1, or
// 3 for the scripting commands (EVAL script numkeys key …); -1 when the
// command has none there.
func keyArg(name []byte, nargs int) int {
	i := 1
	if len(name) >= 4 && (name[0]|0x20 == 'e' || name[0]|0x20 == 'f') {
		for _, c := range scriptCommands {
			if bytes.EqualFold(name, c) {
				i = 3
				break
			}
		}
	}
	if i >= nargs {
		return -1
	}
	return i
}

// scriptCommands take their keys after the script and the key count.
var scriptCommands = [][]byte{[]byte("EVAL"), []byte("EVALSHA"), []byte("EVAL_RO"), []byte("EVALSHA_RO"), []byte("FCALL"), []byte("FCALL_RO")}

// commandSlot reads one RESP-encoded command (an array of bulk strings) and
// returns the slot of its key, or -1 for a command without one.
func commandSlot(cmd []byte) int {
	n, rest, ok := respHeader(cmd, '*')
	if !ok {
		return -1
	}
	var name []byte
	ki := -1
	for i := 0; i < n; i++ {
		var arg []byte
		if arg, rest, ok = respBulk(rest); !ok {
			return -1
		}
		if i == 0 {
			name = arg
			if ki = keyArg(name, n); ki < 0 {
				return -1
			}
		}
		if i == ki {
			return KeySlot(arg)
		}
	}
	return -1
}

// respHeader reads "<kind><n>\r\n".
func respHeader(b []byte, kind byte) (int, []byte, bool) {
	if len(b) < 4 || b[0] != kind {
		return 0, nil, false
	}
	n, i := 0, 1
	for ; i < len(b) && b[i] != '\r'; i++ {
		if b[i] < '0' || b[i] > '9' {
			return 0, nil, false
		}
		n = n*10 + int(b[i]-'0')
	}
	if i+1 >= len(b) {
		return 0, nil, false
	}
	return n, b[i+2:], true
}

// respBulk reads "$<n>\r\n<n bytes>\r\n".
func respBulk(b []byte) ([]byte, []byte, bool) {
	n, rest, ok := respHeader(b, '$')
	if !ok || len(rest) < n+2 {
		return nil, nil, false
	}
	return rest[:n], rest[n+2:], true
}

// topology maps each slot to a node; a new one replaces it whole.
type topology struct {
	slots [SlotCount]int32 // node index, -1 when no node serves the slot
	addrs []string
}

func (t *topology) nodeOf(addr string) int {
	for i, a := range t.addrs {
		if a == addr {
			return i
		}
	}
	return -1
}

// clusterState is the slot map the workers of one run share: read without
// locks on every request, replaced (copy on write) after a MOVED reply or a
// refresh.
type clusterState struct {
	t   target.Target
	cur atomic.Pointer[topology]
	mu  sync.Mutex // serialises updates only

	reloadMu   sync.Mutex
	lastReload time.Time

	// Moved, Asked, TryAgain and Refreshes count redirections, TRYAGAIN
	// retries and topology reloads.
	Moved, Asked, TryAgain, Refreshes atomic.Int64
}

// errNoSlots is returned when the cluster reports no slot ranges.
var errNoSlots = errors.New("cluster: CLUSTER SLOTS and CLUSTER SHARDS list no slots")

// load reads the slot map from the seed address (CLUSTER SLOTS, or CLUSTER
// SHARDS where SLOTS is gone).
func (cs *clusterState) load(ctx context.Context) error {
	seeds := cs.t.ClusterAddrs
	if len(seeds) == 0 {
		seeds = []string{cs.t.Addr}
	}
	if cur := cs.cur.Load(); cur != nil {
		seeds = append(append([]string(nil), cur.addrs...), seeds...)
	}
	var lastErr error
	for _, addr := range seeds {
		t := cs.t
		t.Addr = addr
		topo, err := fetchTopology(ctx, t)
		if err != nil {
			lastErr = err
			continue
		}
		cs.mu.Lock()
		cs.cur.Store(topo)
		cs.mu.Unlock()
		cs.Refreshes.Add(1)
		return nil
	}
	return lastErr
}

func fetchTopology(ctx context.Context, t target.Target) (*topology, error) {
	cl, err := NewClient(ctx, t, 1)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	topo := &topology{}
	for i := range topo.slots {
		topo.slots[i] = -1
	}
	node := func(addr string) int32 {
		if i := topo.nodeOf(addr); i >= 0 {
			return int32(i)
		}
		topo.addrs = append(topo.addrs, addr)
		return int32(len(topo.addrs) - 1)
	}
	ranges, err := cl.ClusterSlots(ctx).Result()
	if err == nil {
		for _, r := range ranges {
			if len(r.Nodes) == 0 {
				continue
			}
			n := node(r.Nodes[0].Addr)
			for s := r.Start; s <= r.End && s < SlotCount; s++ {
				topo.slots[s] = n
			}
		}
	} else {
		shards, serr := cl.ClusterShards(ctx).Result()
		if serr != nil {
			return nil, fmt.Errorf("cluster %s: CLUSTER SLOTS: %v; CLUSTER SHARDS: %w", t.Addr, err, serr)
		}
		for _, sh := range shards {
			for _, nd := range sh.Nodes {
				if nd.Role != "master" {
					continue
				}
				ip := nd.IP
				if ip == "" {
					ip = nd.Endpoint
				}
				n := node(fmt.Sprintf("%s:%d", ip, nd.Port))
				for _, r := range sh.Slots {
					for s := r.Start; s <= r.End && s < SlotCount; s++ {
						topo.slots[s] = n
					}
				}
			}
		}
	}
	if len(topo.addrs) == 0 {
		return nil, errNoSlots
	}
	return topo, nil
}

// reloadSoon reloads the slot map after a node could not be reached (a
// failover moves its slots), at most once a second across the workers.
func (cs *clusterState) reloadSoon(ctx context.Context) {
	if !cs.reloadMu.TryLock() {
		return // another worker is reloading it
	}
	defer cs.reloadMu.Unlock()
	if time.Since(cs.lastReload) < time.Second {
		return
	}
	cs.lastReload = time.Now()
	_ = cs.load(ctx) // on failure the old map stays, and the next failed dial tries again
}

// moved records that slot now lives at addr (a MOVED reply).
func (cs *clusterState) moved(slot int, addr string) {
	cs.Moved.Add(1)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	old := cs.cur.Load()
	if i := old.nodeOf(addr); i >= 0 && old.slots[slot] == int32(i) {
		return // another worker got there first
	}
	next := &topology{slots: old.slots, addrs: append([]string(nil), old.addrs...)}
	i := next.nodeOf(addr)
	if i < 0 {
		next.addrs = append(next.addrs, addr)
		i = len(next.addrs) - 1
	}
	next.slots[slot] = int32(i)
	cs.cur.Store(next)
}

// redirect parses a MOVED or ASK error reply: "MOVED 3999 127.0.0.1:6381".
func redirect(msg []byte) (ask bool, slot int, addr string, ok bool) {
	switch {
	case bytes.HasPrefix(msg, []byte("MOVED ")):
		msg = msg[6:]
	case bytes.HasPrefix(msg, []byte("ASK ")):
		msg, ask = msg[4:], true
	default:
		return false, 0, "", false
	}
	sp := bytes.IndexByte(msg, ' ')
	if sp <= 0 {
		return false, 0, "", false
	}
	for _, c := range msg[:sp] {
		if c < '0' || c > '9' {
			return false, 0, "", false
		}
		slot = slot*10 + int(c-'0')
	}
	if slot >= SlotCount {
		return false, 0, "", false
	}
	return ask, slot, string(msg[sp+1:]), true
}
