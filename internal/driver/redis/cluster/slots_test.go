package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

func TestKeySlot(t *testing.T) {
	assert.Equal(t, uint16(0x31C3), crc16([]byte("123456789")), "CRC16/XMODEM check value")
	tests := []struct {
		key  string
		slot int
	}{
		{"foo", 12182},
		{"bar", 5061},
		{"{user1000}.following", KeySlot([]byte("user1000"))},
		{"{user1000}.followers", KeySlot([]byte("user1000"))},
		{"foo{}{bar}", int(crc16([]byte("foo{}{bar}")) & 16383)}, // an empty tag hashes the whole key
		{"foo{{bar}}zap", KeySlot([]byte("{bar"))},
		{"foo{bar}{zap}", KeySlot([]byte("bar"))},
		{"", 0},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.slot, KeySlot([]byte(tc.key)), tc.key)
	}
}

// TestDrawnSlot reads the key's slot from a drawn command: the first
// argument, the first key of a script command, none for a command without
// one; a name drawn from the template finds its key per command.
func TestDrawnSlot(t *testing.T) {
	tests := []struct {
		template string
		slot     int
	}{
		{"SET foo v", 12182},
		{"get {foo}x", 12182},
		{"EVALSHA abc 1 foo", 12182},
		{"EVAL 'return 1' 0", -1},
		{"PING", -1},
		{"SET {t}k-__RAND__ __DATA__", KeySlot([]byte("t"))},
		{"__RAND__ foo", 12182}, // a drawn name: the key is its first argument
	}
	for _, tc := range tests {
		tp, err := cmdtmpl.Parse(tc.template)
		require.NoError(t, err)
		var o cmdtmpl.Options
		o.Ranges[1] = cmdtmpl.Range{Max: 100}
		o.DataSize = 8
		p, err := cmdtmpl.Compile(tp, o)
		require.NoError(t, err, tc.template)
		g := p.NewGen(1)
		g.Draw()
		assert.Equal(t, tc.slot, DrawnSlot(g, KeyArgOf(tp), tp.NumArgs()), tc.template)
	}
}

// TestNodeForRuns checks the lookup by runs against the map itself: for a
// map cut into 3 runs (a new cluster), into 16 (the most NodeFor scans), a
// map with slots no node serves, and one cut finer, which is read directly.
func TestNodeForRuns(t *testing.T) {
	cuts := func(bounds ...int) *Topology {
		topo := &Topology{Addrs: []string{"a", "b", "c"}}
		nd, b := uint16(0), 0
		for s := range topo.slots {
			if b < len(bounds) && s == bounds[b] {
				nd, b = (nd+1)%3, b+1
			}
			topo.slots[s] = nd
		}
		return topo
	}
	fifteen := make([]int, 15)
	for i := range fifteen {
		fifteen[i] = (i + 1) * 1000
	}
	gaps := cuts(5461, 10923)
	for s := 100; s < 200; s++ {
		gaps.slots[s] = noNode
	}
	fine := cuts(5461, 10923)
	for s := 0; s < 40; s += 2 {
		fine.slots[s] = 2
	}
	for _, tc := range []struct {
		name string
		topo *Topology
		runs int
	}{
		{"a new cluster", cuts(5461, 10923), 3},
		{"16 runs", cuts(fifteen...), 16},
		{"slots no node serves", gaps, 5},
		{"cut finer", fine, 0},
	} {
		tc.topo.index()
		assert.Len(t, tc.topo.ends, tc.runs, tc.name)
		for s := 0; s < SlotCount; s++ {
			want := int(tc.topo.slots[s])
			if tc.topo.slots[s] == noNode {
				want = 0
			}
			if got := NodeFor(tc.topo, s); got != want {
				t.Fatalf("%s: slot %d: node %d, want %d", tc.name, s, got, want)
			}
		}
		assert.Equal(t, 0, NodeFor(tc.topo, -1), "a command without a key")
	}
}

// TestCRC16TwoBytesAStep checks the two-bytes-a-step CRC against the
// byte-at-a-time definition, for every length up to 64.
func TestCRC16TwoBytesAStep(t *testing.T) {
	ref := func(b []byte) uint16 {
		var c uint16
		for _, x := range b {
			c = c<<8 ^ crcTable[byte(c>>8)^x]
		}
		return c
	}
	b := make([]byte, 64)
	for i := range b {
		b[i] = byte(i*131 + 7)
	}
	for n := 0; n <= len(b); n++ {
		assert.Equal(t, ref(b[:n]), crc16(b[:n]), "length %d", n)
	}
}

func TestRedirect(t *testing.T) {
	ask, slot, addr, ok := Redirect([]byte("MOVED 3999 127.0.0.1:6381"))
	assert.True(t, ok)
	assert.False(t, ask)
	assert.Equal(t, 3999, slot)
	assert.Equal(t, "127.0.0.1:6381", addr)
	ask, slot, addr, ok = Redirect([]byte("ASK 12182 10.0.0.2:7000"))
	assert.True(t, ok && ask)
	assert.Equal(t, 12182, slot)
	assert.Equal(t, "10.0.0.2:7000", addr)
	for _, bad := range []string{"ERR MOVED", "MOVED x 1:2", "MOVED 99999 a:1", "ASK 12", "MOVED  a"} {
		_, _, _, ok = Redirect([]byte(bad))
		assert.False(t, ok, bad)
	}
}

func FuzzRedirect(f *testing.F) {
	f.Add([]byte("MOVED 1 a:1"))
	f.Add([]byte("ASK 16383 127.0.0.1:7000"))
	f.Add([]byte("MOVED 99999 x"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s := KeySlot(b); s < 0 || s >= SlotCount {
			t.Fatalf("slot %d", s)
		}
		if _, s, _, ok := Redirect(b); ok && (s < 0 || s >= SlotCount) {
			t.Fatalf("redirect slot %d", s)
		}
	})
}

func BenchmarkKeySlot(b *testing.B) {
	key := []byte("key:12345")
	b.ReportAllocs()
	for b.Loop() {
		_ = KeySlot(key)
	}
}
