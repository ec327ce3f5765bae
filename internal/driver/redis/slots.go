package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
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

// crcTable2 is crcTable advanced through one more zero byte, so that crc16
// takes two bytes a step with two independent lookups (CRC is linear: the
// first byte's term is shifted through the second byte).
var crcTable2 = func() (t [256]uint16) {
	for i, c := range crcTable {
		t[i] = c<<8 ^ crcTable[c>>8]
	}
	return t
}()

func crc16(b []byte) uint16 {
	var c uint16
	for ; len(b) >= 2; b = b[2:] {
		c = crcTable2[byte(c>>8)^b[0]] ^ crcTable[byte(c)^b[1]]
	}
	if len(b) == 1 {
		c = c<<8 ^ crcTable[byte(c>>8)^b[0]]
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

// drawnSlot is the slot of the command gen drew: of its argument ki, or,
// when ki is keyDynamic, of the key argument its drawn name implies; -1
// for a command without a key (ki -1).
func drawnSlot(gen *cmdtmpl.Gen, ki, nargs int) int {
	if ki == keyDynamic {
		ki = keyArg(gen.Arg(0), nargs)
	}
	if ki < 0 {
		return -1
	}
	return KeySlot(gen.Arg(ki))
}

// keyArgOf is a template's key argument: fixed by a literal command name,
// or keyDynamic when the name is drawn.
func keyArgOf(t *cmdtmpl.Template) int {
	if name := t.Name(); name != "" {
		return keyArg([]byte(name), t.NumArgs())
	}
	return keyDynamic
}

// topology maps each slot to a node; a new one replaces it whole.
type topology struct {
	slots [SlotCount]uint16 // node index, noNode when no node serves the slot
	addrs []string
	// The map as runs of slots with one owner (ends[i] is run i's last
	// slot), set by index when there are at most maxRuns: a few bytes that
	// stay in the CPU's first-level cache, where the 32 KB map is read
	// from further away once the network stack has run (a quarter of the
	// cluster path's own CPU went to that one read).
	ends, owners []uint16
}

// maxRuns bounds the runs nodeFor scans; a map split finer (many single
// slots migrated) is read directly.
const maxRuns = 16

// index sets the runs of the map (none past maxRuns).
func (t *topology) index() {
	t.ends, t.owners = nil, nil
	var ends, owners []uint16
	for s := 0; s < SlotCount; s++ {
		if s == SlotCount-1 || t.slots[s+1] != t.slots[s] {
			if len(ends) == maxRuns {
				return
			}
			ends, owners = append(ends, uint16(s)), append(owners, t.slots[s])
		}
	}
	t.ends, t.owners = ends, owners
}

// noNode marks a slot no node serves. The map holds 16-bit node indexes
// (32 KB rather than 64): the lookup per command is the cluster path's
// costliest line when the map falls out of the CPU's first-level cache.
const noNode = 0xFFFF

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
	t endpoint.Target
	// stops ends the run's node connections' waits at its end.
	stops StopHubs
	cur   atomic.Pointer[topology]
	mu    sync.Mutex // serialises updates only

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

func fetchTopology(ctx context.Context, t endpoint.Target) (*topology, error) {
	cl, err := NewClient(ctx, t, 1)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	topo := &topology{}
	for i := range topo.slots {
		topo.slots[i] = noNode
	}
	node := func(addr string) uint16 {
		if i := topo.nodeOf(addr); i >= 0 {
			return uint16(i)
		}
		topo.addrs = append(topo.addrs, addr)
		return uint16(len(topo.addrs) - 1)
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
	topo.index()
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

// followed notes a redirection being followed: an ASK is counted, a MOVED
// patches the slot map (moved).
func (cs *clusterState) followed(ask bool, slot int, addr string) {
	if ask {
		cs.Asked.Add(1)
		return
	}
	cs.moved(slot, addr)
}

// moved records that slot now lives at addr (a MOVED reply).
func (cs *clusterState) moved(slot int, addr string) {
	cs.Moved.Add(1)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	old := cs.cur.Load()
	if i := old.nodeOf(addr); i >= 0 && old.slots[slot] == uint16(i) {
		return // another worker got there first
	}
	next := &topology{slots: old.slots, addrs: append([]string(nil), old.addrs...)}
	i := next.nodeOf(addr)
	if i < 0 {
		next.addrs = append(next.addrs, addr)
		i = len(next.addrs) - 1
	}
	next.slots[slot] = uint16(i)
	next.index()
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
