package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
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

// DrawnSlot is the slot of the command gen drew: of its argument ki, or,
// when ki is KeyDynamic, of the key argument its drawn name implies; -1
// for a command without a key (ki -1).
func DrawnSlot(gen *cmdtmpl.Gen, ki, nargs int) int {
	if ki == KeyDynamic {
		ki = keyArg(gen.Arg(0), nargs)
	}
	if ki < 0 {
		return -1
	}
	return KeySlot(gen.Arg(ki))
}

// KeyArgOf is a template's key argument: fixed by a literal command name,
// or KeyDynamic when the name is drawn.
func KeyArgOf(t *cmdtmpl.Template) int {
	if name := t.Name(); name != "" {
		return keyArg([]byte(name), t.NumArgs())
	}
	return KeyDynamic
}

// Topology maps each slot to a node; a new one replaces it whole.
type Topology struct {
	slots [SlotCount]uint16 // node index, noNode when no node serves the slot
	Addrs []string
	// The map as runs of slots with one owner (ends[i] is run i's last
	// slot), set by index when there are at most maxRuns: a few bytes that
	// stay in the CPU's first-level cache, where the 32 KB map is read
	// from further away once the network stack has run (a quarter of the
	// cluster path's own CPU went to that one read).
	ends, owners []uint16
}

// NewTopology is the map of addrs whose slot s is served by node
// owner(s), an index into addrs.
func NewTopology(addrs []string, owner func(slot int) int) *Topology {
	t := &Topology{Addrs: addrs}
	for s := range t.slots {
		t.slots[s] = uint16(owner(s))
	}
	t.index()
	return t
}

// maxRuns bounds the runs NodeFor scans; a map split finer (many single
// slots migrated) is read directly.
const maxRuns = 16

// index sets the runs of the map (none past maxRuns).
func (t *Topology) index() {
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

func (t *Topology) nodeOf(addr string) int {
	for i, a := range t.Addrs {
		if a == addr {
			return i
		}
	}
	return -1
}

// State is the slot map the workers of one run share: read without
// locks on every request, replaced (copy on write) after a MOVED reply or a
// refresh.
type State struct {
	t endpoint.Target
	// stops ends the run's node connections' waits at its end.
	stops   transport.StopHubs
	Current atomic.Pointer[Topology]
	mu      sync.Mutex // serialises updates only

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
func (cs *State) load(ctx context.Context) error {
	seeds := cs.t.ClusterAddrs
	if len(seeds) == 0 {
		seeds = []string{cs.t.Addr}
	}
	if cur := cs.Current.Load(); cur != nil {
		seeds = append(append([]string(nil), cur.Addrs...), seeds...)
	}
	var lastErr error
	for _, addr := range seeds {
		t := cs.t
		t.Addr = addr
		topo, err := FetchTopology(ctx, t)
		if err != nil {
			lastErr = err
			continue
		}
		cs.mu.Lock()
		cs.Current.Store(topo)
		cs.mu.Unlock()
		cs.Refreshes.Add(1)
		return nil
	}
	return lastErr
}

func FetchTopology(ctx context.Context, t endpoint.Target) (*Topology, error) {
	cl, err := transport.NewClient(ctx, t, 1)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	topo := &Topology{}
	for i := range topo.slots {
		topo.slots[i] = noNode
	}
	node := func(addr string) uint16 {
		if i := topo.nodeOf(addr); i >= 0 {
			return uint16(i)
		}
		topo.Addrs = append(topo.Addrs, addr)
		return uint16(len(topo.Addrs) - 1)
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
	if len(topo.Addrs) == 0 {
		return nil, errNoSlots
	}
	topo.index()
	return topo, nil
}

// reloadSoon reloads the slot map after a node could not be reached (a
// failover moves its slots), at most once a second across the workers.
func (cs *State) reloadSoon(ctx context.Context) {
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

// Followed notes a redirection being followed: an ASK is counted, a MOVED
// patches the slot map (Reassign).
func (cs *State) Followed(ask bool, slot int, addr string) {
	if ask {
		cs.Asked.Add(1)
		return
	}
	cs.Reassign(slot, addr)
}

// Reassign records that slot now lives at addr (a MOVED reply).
func (cs *State) Reassign(slot int, addr string) {
	cs.Moved.Add(1)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	old := cs.Current.Load()
	if i := old.nodeOf(addr); i >= 0 && old.slots[slot] == uint16(i) {
		return // another worker got there first
	}
	next := &Topology{slots: old.slots, Addrs: append([]string(nil), old.Addrs...)}
	i := next.nodeOf(addr)
	if i < 0 {
		next.Addrs = append(next.Addrs, addr)
		i = len(next.Addrs) - 1
	}
	next.slots[slot] = uint16(i)
	next.index()
	cs.Current.Store(next)
}

// Redirect parses a MOVED or ASK error reply: "MOVED 3999 127.0.0.1:6381".
func Redirect(msg []byte) (ask bool, slot int, addr string, ok bool) {
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

// MaxRedirects bounds how often one command follows MOVED or ASK.
const MaxRedirects = 5

var (
	Asking        = []byte("*1\r\n$6\r\nASKING\r\n")
	TryAgainReply = []byte("TRYAGAIN")
)

// KeyDynamic marks an operation whose command name is drawn: its key's
// argument is found for each command.
const KeyDynamic = -2

// NodeFor is the node serving slot (the first node for a command without
// a key, or a slot no node serves).
func NodeFor(topo *Topology, slot int) int {
	if slot < 0 {
		return 0
	}
	var nd uint16
	if topo.ends != nil {
		i := 0
		for _, e := range topo.ends { // count the runs that end before slot, without a branch to mispredict
			i += int(uint(int(e)-slot) >> (bits.UintSize - 1))
		}
		nd = topo.owners[i]
	} else {
		nd = topo.slots[slot]
	}
	if nd == noNode {
		return 0
	}
	return int(nd)
}

// Routing is what a cluster run's routing followed.
type Routing struct {
	// Nodes is how many primaries served slots at the end of the run.
	Nodes int
	// MapLoads counts slot map reads: one at the start, more when a node
	// could not be reached.
	MapLoads int64
	// Moved and Asked count MOVED and ASK replies followed; TryAgain
	// counts transactions sent again after TRYAGAIN.
	Moved, Asked, TryAgain int64
}

// Routing reports what the Routing followed.
func (cs *State) Routing() *Routing {
	r := &Routing{MapLoads: cs.Refreshes.Load(), Moved: cs.Moved.Load(), Asked: cs.Asked.Load(), TryAgain: cs.TryAgain.Load()}
	if topo := cs.Current.Load(); topo != nil {
		r.Nodes = len(topo.Addrs)
	}
	return r
}
