package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/tairbench/tairbench/pkg/resp"
)

// Error replies of the TR.* commands (Redis conventions; the spec shows none).
const (
	errOffset   = "ERR bit offset is not an integer or out of range"
	errBit      = "ERR bit is not an integer or out of range"
	errInt      = "ERR value is not an integer or out of range"
	errSyntax   = "ERR syntax error"
	errRange    = "ERR start offset is greater than end offset"
	errBitArray = "ERR bit array must contain only '0' and '1' characters"
	errTooMany  = "ERR the reply would hold more than 16777216 elements; narrow the range"
	maxReply    = 1 << 24
)

// bitmapValue is a TairRoaring bitmap.
type bitmapValue struct{ bm *roaring.Bitmap }

func (v *bitmapValue) TypeName() string { return "tairroaring" }

// MemoryBytes estimates the bitmap's Go heap: its containers' payload
// (as GetSizeInBytes counts it) plus about 48 bytes of bookkeeping per
// container (the key, the interface, the container's header) and the
// bitmap's own header.
func (v *bitmapValue) MemoryBytes() uint64 {
	return v.bm.GetSizeInBytes() + 48*uint64(v.bm.Stats().Containers) + 48
}

// roaringModule is TairRoaring: the TR.* commands.
func roaringModule() Module {
	return Module{Name: "tairroaring", Commands: roaringCommands(), InfoKeys: "tairroaring_keys", TypeName: "tairroaring"}
}

func roaringCommands() []*Command {
	w := flagWrite
	one := func(name string, arity int, flags Flags, h func(*conn, [][]byte)) *Command {
		return &Command{Name: name, Arity: arity, Flags: flags, FirstKey: 1, LastKey: 1, Step: 1, Handler: h}
	}
	return []*Command{
		one("tr.setbit", 4, w, trSetBit),
		one("tr.setbits", -3, w, trSetBits),
		one("tr.clearbits", -3, w, trClearBits),
		one("tr.getbit", 3, 0, trGetBit),
		one("tr.getbits", -3, 0, trGetBits),
		one("tr.setrange", 4, w, rangeWrite((*roaring.Bitmap).AddRange)),
		one("tr.fliprange", 4, w, rangeWrite((*roaring.Bitmap).Flip)),
		one("tr.appendbitarray", 4, w, trAppendBitArray),
		one("tr.appendintarray", -3, w, trAppendIntArray),
		one("tr.setintarray", -3, w, trSetIntArray),
		one("tr.setbitarray", 3, w, trSetBitArray),
		one("tr.range", 4, 0, trRange),
		one("tr.rangebitarray", 4, 0, trRangeBitArray),
		one("tr.bitcount", -2, 0, trBitCount),
		one("tr.bitpos", -3, 0, trBitPos),
		one("tr.rank", 3, 0, trRank),
		one("tr.min", 2, 0, func(c *conn, a [][]byte) { trMinMax(c, a, true) }),
		one("tr.max", 2, 0, func(c *conn, a [][]byte) { trMinMax(c, a, false) }),
		one("tr.scan", -3, 0, trScan),
		one("tr.optimize", 2, w, trOptimize),
		one("tr.stat", -2, 0, trStat),
		{Name: "tr.bitop", Arity: -4, Flags: w, FirstKey: 1, LastKey: -1, Step: 1, Handler: trBitOp},
		{Name: "tr.bitopcard", Arity: -3, FirstKey: 2, LastKey: -1, Step: 1, Handler: trBitOpCard},
		{Name: "tr.diff", Arity: 4, Flags: w, FirstKey: 1, LastKey: 3, Step: 1, Handler: trDiff},
		{Name: "tr.jaccard", Arity: 3, FirstKey: 1, LastKey: 2, Step: 1, Handler: trJaccard},
		{Name: "tr.contains", Arity: 3, FirstKey: 1, LastKey: 2, Step: 1, Handler: trContains},
		{Name: "tr.loadstring", Arity: 3, Flags: w, FirstKey: 1, LastKey: 2, Step: 1, Handler: trLoadString},
	}
}

func parseOffset(b []byte) (uint32, bool) {
	n, ok := resp.ParseInt(b)
	if !ok || n < 0 || n > math.MaxUint32 {
		return 0, false
	}
	return uint32(n), true
}

// bitmap returns the bitmap at key. A missing key gives nil (or a new,
// stored bitmap when create is set). A key of another type gives ok=false
// after replying WRONGTYPE.
func (c *conn) bitmap(key []byte, create bool) (*roaring.Bitmap, bool) {
	v, found, ok := lookup[*bitmapValue](c, key)
	if ok && !create {
		c.countRead(found)
	}
	switch {
	case !ok:
		return nil, false
	case found:
		return v.bm, true
	case !create:
		return nil, true
	}
	bm := roaring.New()
	c.db().set(key, &bitmapValue{bm: bm})
	return bm, true
}

func (c *conn) replaceBitmap(key []byte, bm *roaring.Bitmap) bool {
	d := c.db()
	if v := d.get(key); v != nil {
		if _, ok := v.(*bitmapValue); !ok {
			c.out = append(c.out, wrongType...)
			return false
		}
	}
	d.set(key, &bitmapValue{bm: bm})
	return true
}

func (c *conn) fail(msg string) { c.out = resp.AppendError(c.out, msg) }

// parseBit reads a bit value, "0" or "1".
func parseBit(b []byte) (bool, bool) {
	switch string(b) {
	case "1":
		return true, true
	case "0":
		return false, true
	}
	return false, false
}

func trSetBit(c *conn, a [][]byte) {
	off, ok := parseOffset(a[2])
	if !ok {
		c.fail(errOffset)
		return
	}
	set, ok := parseBit(a[3])
	if !ok {
		c.fail(errBit)
		return
	}
	bm, ok := c.bitmap(a[1], true)
	if !ok {
		return
	}
	var prev int64
	if set {
		if !bm.CheckedAdd(off) {
			prev = 1
		}
	} else if bm.CheckedRemove(off) {
		prev = 1
	}
	c.out = resp.AppendInt(c.out, prev)
}

// offsets parses args into c's scratch list of offsets.
func (c *conn) offsets(args [][]byte) ([]uint32, bool) {
	buf := c.offsetBuf[:0]
	for _, b := range args {
		off, ok := parseOffset(b)
		if !ok {
			c.fail(errOffset)
			return nil, false
		}
		buf = append(buf, off)
	}
	c.offsetBuf = buf
	return buf, true
}

// addOffsets adds the offsets in a[2:] to the bitmap at a[1] (created if
// missing) and returns it; nil after an error reply.
func (c *conn) addOffsets(a [][]byte) *roaring.Bitmap {
	offs, ok := c.offsets(a[2:])
	if !ok {
		return nil
	}
	bm, ok := c.bitmap(a[1], true)
	if !ok {
		return nil
	}
	bm.AddMany(offs)
	return bm
}

func trSetBits(c *conn, a [][]byte) {
	if bm := c.addOffsets(a); bm != nil {
		c.out = resp.AppendInt(c.out, int64(bm.GetCardinality()))
	}
}

func trClearBits(c *conn, a [][]byte) {
	offs, ok := c.offsets(a[2:])
	if !ok {
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	n := 0
	if bm != nil {
		for _, o := range offs {
			if bm.CheckedRemove(o) {
				n++
			}
		}
	}
	c.out = resp.AppendInt(c.out, int64(n))
}

func trGetBit(c *conn, a [][]byte) {
	off, ok := parseOffset(a[2])
	if !ok {
		c.fail(errOffset)
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	if bm != nil && bm.Contains(off) {
		c.out = append(c.out, ":1\r\n"...)
	} else {
		c.out = append(c.out, ":0\r\n"...)
	}
}

func trGetBits(c *conn, a [][]byte) {
	offs, ok := c.offsets(a[2:])
	if !ok {
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	if bm == nil {
		c.out = resp.AppendArray(c.out, 0)
		return
	}
	c.out = resp.AppendArray(c.out, len(offs))
	for _, o := range offs {
		if bm.Contains(o) {
			c.out = append(c.out, ":1\r\n"...)
		} else {
			c.out = append(c.out, ":0\r\n"...)
		}
	}
}

// rangeArgs parses an inclusive [start, end] offset range.
func (c *conn) rangeArgs(s, e []byte) (uint32, uint32, bool) {
	start, ok1 := parseOffset(s)
	end, ok2 := parseOffset(e)
	if !ok1 || !ok2 {
		c.fail(errOffset)
		return 0, 0, false
	}
	if start > end {
		c.fail(errRange)
		return 0, 0, false
	}
	return start, end, true
}

// rangeWrite builds TR.SETRANGE and TR.FLIPRANGE: op is applied to the
// inclusive range [start, end] of the bitmap (created if missing) and the
// reply is the cardinality after.
func rangeWrite(op func(bm *roaring.Bitmap, lo, hi uint64)) func(*conn, [][]byte) {
	return func(c *conn, a [][]byte) {
		start, end, ok := c.rangeArgs(a[2], a[3])
		if !ok {
			return
		}
		bm, ok := c.bitmap(a[1], true)
		if !ok {
			return
		}
		op(bm, uint64(start), uint64(end)+1)
		c.out = resp.AppendInt(c.out, int64(bm.GetCardinality()))
	}
}

func validBits(b []byte) bool {
	for _, ch := range b {
		if ch != '0' && ch != '1' {
			return false
		}
	}
	return true
}

// trAppendBitArray writes character i of the bit string at offset+1+i
// ('1' sets, '0' clears); offset may be -1.
func trAppendBitArray(c *conn, a [][]byte) {
	off, ok := resp.ParseInt(a[2])
	if !ok || off < -1 || off+int64(len(a[3])) > math.MaxUint32 {
		c.fail(errOffset)
		return
	}
	if !validBits(a[3]) {
		c.fail(errBitArray)
		return
	}
	bm, ok := c.bitmap(a[1], true)
	if !ok {
		return
	}
	base := uint32(off + 1)
	buf := c.offsetBuf[:0]
	for i, ch := range a[3] {
		if ch == '1' {
			buf = append(buf, base+uint32(i))
		} else {
			bm.Remove(base + uint32(i))
		}
	}
	bm.AddMany(buf)
	c.offsetBuf = buf
	c.out = resp.AppendInt(c.out, int64(bm.GetCardinality()))
}

func trAppendIntArray(c *conn, a [][]byte) {
	if c.addOffsets(a) != nil {
		c.out = resp.AppendOK(c.out)
	}
}

func trSetIntArray(c *conn, a [][]byte) {
	offs, ok := c.offsets(a[2:])
	if !ok {
		return
	}
	if c.replaceBitmap(a[1], roaring.BitmapOf(offs...)) {
		c.out = resp.AppendOK(c.out)
	}
}

func trSetBitArray(c *conn, a [][]byte) {
	if !validBits(a[2]) {
		c.fail(errBitArray)
		return
	}
	if int64(len(a[2])) > math.MaxUint32 {
		c.fail(errOffset)
		return
	}
	bm := roaring.New()
	for i, ch := range a[2] {
		if ch == '1' {
			bm.Add(uint32(i))
		}
	}
	if c.replaceBitmap(a[1], bm) {
		c.out = resp.AppendOK(c.out)
	}
}

// countIn returns the number of set bits in [start, end].
func countIn(bm *roaring.Bitmap, start, end uint32) uint64 {
	n := bm.Rank(end)
	if start > 0 {
		n -= bm.Rank(start - 1)
	}
	return n
}

func trRange(c *conn, a [][]byte) {
	start, end, ok := c.rangeArgs(a[2], a[3])
	if !ok {
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	if bm == nil {
		c.out = resp.AppendArray(c.out, 0)
		return
	}
	n := countIn(bm, start, end)
	if n > maxReply {
		c.fail(errTooMany)
		return
	}
	c.out = resp.AppendArray(c.out, int(n))
	it := bm.Iterator()
	it.AdvanceIfNeeded(start)
	for i := uint64(0); i < n && it.HasNext(); i++ {
		c.out = resp.AppendInt(c.out, int64(it.Next()))
	}
}

func trRangeBitArray(c *conn, a [][]byte) {
	start, end, ok := c.rangeArgs(a[2], a[3])
	if !ok {
		return
	}
	if uint64(end-start)+1 > 512<<20 {
		c.fail("ERR the range is longer than 512 MiB of characters")
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	n := int(end-start) + 1
	buf := bytes.Repeat([]byte{'0'}, n)
	if bm != nil {
		it := bm.Iterator()
		it.AdvanceIfNeeded(start)
		for it.HasNext() {
			v := it.Next()
			if v > end {
				break
			}
			buf[v-start] = '1'
		}
	}
	c.out = resp.AppendBulk(c.out, buf)
}

func trBitCount(c *conn, a [][]byte) {
	if len(a) != 2 && len(a) != 4 {
		c.fail(errSyntax)
		return
	}
	var start, end uint32
	if len(a) == 4 {
		var ok bool
		if start, end, ok = c.rangeArgs(a[2], a[3]); !ok {
			return
		}
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	switch {
	case bm == nil:
		c.out = resp.AppendInt(c.out, 0)
	case len(a) == 4:
		c.out = resp.AppendInt(c.out, int64(countIn(bm, start, end)))
	default:
		c.out = resp.AppendInt(c.out, int64(bm.GetCardinality()))
	}
}

// trBitPos finds the count-th bit equal to value (count 1-based, default
// 1; negative counts from the highest set bit downwards).
func trBitPos(c *conn, a [][]byte) {
	if len(a) > 4 {
		c.fail(errSyntax)
		return
	}
	want, ok := parseBit(a[2])
	if !ok {
		c.fail(errBit)
		return
	}
	count := int64(1)
	if len(a) == 4 {
		n, ok := resp.ParseInt(a[3])
		if !ok || n == 0 {
			c.fail(errInt)
			return
		}
		count = n
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	c.out = resp.AppendInt(c.out, bitPos(bm, want, count))
}

func bitPos(bm *roaring.Bitmap, want bool, count int64) int64 {
	card := uint64(0)
	if bm != nil {
		card = bm.GetCardinality()
	}
	if want {
		var idx uint64
		switch {
		case count > 0 && uint64(count) <= card:
			idx = uint64(count - 1)
		case count < 0 && uint64(-count) <= card:
			idx = card - uint64(-count)
		default:
			return -1
		}
		v, err := bm.Select(uint32(idx))
		if err != nil {
			return -1
		}
		return int64(v)
	}
	if card == 0 {
		if count > 0 {
			return count - 1
		}
		return -1
	}
	if count > 0 {
		// The count-th zero: binary search the offset x with x+1-rank(x) == count.
		lo, hi := uint64(0), uint64(math.MaxUint32)
		if int64(bm.Maximum())+1-int64(card) < count { // past the highest set bit
			x := int64(bm.Maximum()) + (count - (int64(bm.Maximum()) + 1 - int64(card)))
			if x > math.MaxUint32 {
				return -1
			}
			return x
		}
		for lo < hi {
			mid := (lo + hi) / 2
			if int64(mid)+1-int64(bm.Rank(uint32(mid))) >= count {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return int64(lo)
	}
	// Negative count: zeros counted downwards from the highest set bit.
	max := int64(bm.Maximum())
	zeros := max + 1 - int64(card)
	k := zeros + count + 1 // the k-th zero from the start
	if k < 1 {
		return -1
	}
	return bitPos(bm, false, k)
}

func trRank(c *conn, a [][]byte) {
	off, ok := parseOffset(a[2])
	if !ok {
		c.fail(errOffset)
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	if bm == nil {
		c.out = resp.AppendInt(c.out, -1)
		return
	}
	c.out = resp.AppendInt(c.out, int64(bm.Rank(off)))
}

func trMinMax(c *conn, a [][]byte, min bool) {
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	switch {
	case bm == nil || bm.IsEmpty():
		c.out = resp.AppendInt(c.out, -1)
	case min:
		c.out = resp.AppendInt(c.out, int64(bm.Minimum()))
	default:
		c.out = resp.AppendInt(c.out, int64(bm.Maximum()))
	}
}

// trScan returns up to COUNT values >= cursor and the next unreturned
// value as the cursor (0 when done).
func trScan(c *conn, a [][]byte) {
	cursor, ok := parseOffset(a[2])
	if !ok {
		c.fail("ERR invalid cursor")
		return
	}
	count := int64(10)
	switch len(a) {
	case 3:
	case 5:
		if !bytes.EqualFold(a[3], []byte("count")) {
			c.fail(errSyntax)
			return
		}
		n, ok := resp.ParseInt(a[4])
		if !ok || n < 1 {
			c.fail(errInt)
			return
		}
		count = min(n, maxReply)
	default:
		c.fail(errSyntax)
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	vals := c.offsetBuf[:0]
	next := int64(0)
	if bm != nil {
		it := bm.Iterator()
		it.AdvanceIfNeeded(cursor)
		for it.HasNext() && int64(len(vals)) < count {
			vals = append(vals, it.Next())
		}
		if it.HasNext() {
			next = int64(it.PeekNext())
		}
	}
	c.offsetBuf = vals
	c.out = resp.AppendArray(c.out, 2)
	c.out = resp.AppendInt(c.out, next)
	c.out = resp.AppendArray(c.out, len(vals))
	for _, v := range vals {
		c.out = resp.AppendInt(c.out, int64(v))
	}
}

func trOptimize(c *conn, a [][]byte) {
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	if bm == nil {
		c.out = resp.AppendNil(c.out)
		return
	}
	bm.RunOptimize()
	c.out = resp.AppendOK(c.out)
}

// Stat is TR.STAT's content: CRoaring's roaring_statistics_t, with
// container bytes by CRoaring's rules (2 per array value, 8192 per bitset,
// 2 + 4 per run).
type Stat struct {
	Cardinality   uint64        `json:"cardinality"`
	Containers    uint64        `json:"number_of_containers"`
	MaxValue      uint32        `json:"max_value"`
	MinValue      uint32        `json:"min_value"`
	SumValue      uint64        `json:"sum_value"`
	Array, Bitset ContainerStat `json:"-"`
	Run           ContainerStat `json:"-"`
}

// ContainerStat counts one container type.
type ContainerStat struct {
	Containers uint64 `json:"containers"`
	Values     uint64 `json:"values"`
	Bytes      uint64 `json:"bytes"`
}

// StatOf computes a bitmap's statistics.
func StatOf(bm *roaring.Bitmap) Stat {
	st := bm.Stats()
	s := Stat{
		Cardinality: st.Cardinality, Containers: st.Containers,
		Array:    ContainerStat{st.ArrayContainers, st.ArrayContainerValues, st.ArrayContainerBytes},
		Bitset:   ContainerStat{st.BitmapContainers, st.BitmapContainerValues, st.BitmapContainerBytes},
		Run:      ContainerStat{st.RunContainers, st.RunContainerValues, st.RunContainerBytes},
		MinValue: math.MaxUint32,
	}
	if !bm.IsEmpty() {
		s.MinValue, s.MaxValue = bm.Minimum(), bm.Maximum()
	}
	it := bm.ManyIterator()
	buf := make([]uint32, 4096)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, v := range buf[:n] {
			s.SumValue += uint64(v)
		}
	}
	return s
}

// Text renders the statistics in TR.STAT's plain format.
func (s Stat) Text() string {
	return fmt.Sprintf("cardinality: %d\r\nnumber of containers: %d\r\nmax value: %d\r\nmin value: %d\r\nsum value: %d\r\n"+
		"number of array containers: %d\r\n\tarray container values: %d\r\n\tarray container bytes: %d\r\n"+
		"number of bitset containers: %d\r\n\tbitset container values: %d\r\n\tbitset container bytes: %d\r\n"+
		"number of run containers: %d\r\n\trun container values: %d\r\n\trun container bytes: %d\r\n",
		s.Cardinality, s.Containers, s.MaxValue, s.MinValue, s.SumValue,
		s.Array.Containers, s.Array.Values, s.Array.Bytes,
		s.Bitset.Containers, s.Bitset.Values, s.Bitset.Bytes,
		s.Run.Containers, s.Run.Values, s.Run.Bytes)
}

// JSON renders the statistics for TR.STAT key JSON (field names documented in the README).
func (s Stat) JSON() []byte {
	type out struct {
		Stat
		Array  ContainerStat `json:"array_container"`
		Bitset ContainerStat `json:"bitset_container"`
		Run    ContainerStat `json:"run_container"`
	}
	b, _ := json.Marshal(out{Stat: s, Array: s.Array, Bitset: s.Bitset, Run: s.Run})
	return b
}

func trStat(c *conn, a [][]byte) {
	asJSON := false
	switch {
	case len(a) == 3 && bytes.EqualFold(a[2], []byte("json")):
		asJSON = true
	case len(a) != 2:
		c.fail(errSyntax)
		return
	}
	bm, ok := c.bitmap(a[1], false)
	if !ok {
		return
	}
	if bm == nil {
		c.out = resp.AppendNil(c.out)
		return
	}
	st := StatOf(bm)
	if asJSON {
		c.out = resp.AppendBulk(c.out, st.JSON())
	} else {
		c.out = resp.AppendBulkString(c.out, st.Text())
	}
}

// sources collects the bitmaps at keys (missing keys are empty).
func (c *conn) sources(keys [][]byte) ([]*roaring.Bitmap, bool) {
	out := make([]*roaring.Bitmap, 0, len(keys))
	for _, k := range keys {
		bm, ok := c.bitmap(k, false)
		if !ok {
			return nil, false
		}
		if bm == nil {
			bm = roaring.New()
		}
		out = append(out, bm)
	}
	return out, true
}

// bitop computes op over bms. NOT takes one bitmap and complements it
// within [0, max].
func (c *conn) bitop(op []byte, keys [][]byte) (*roaring.Bitmap, bool) {
	var kind string
	for _, o := range []string{"AND", "OR", "XOR", "NOT", "DIFF"} {
		if bytes.EqualFold(op, []byte(o)) {
			kind = o
		}
	}
	if kind == "" {
		c.fail(errSyntax)
		return nil, false
	}
	if kind == "NOT" && len(keys) != 1 {
		c.fail("ERR BITOP NOT must be called with a single source key.")
		return nil, false
	}
	bms, ok := c.sources(keys)
	if !ok {
		return nil, false
	}
	switch kind {
	case "AND":
		return roaring.FastAnd(bms...), true
	case "OR":
		return roaring.FastOr(bms...), true
	case "XOR":
		r := bms[0]
		for _, b := range bms[1:] {
			r = xor(r, b)
		}
		if len(bms) == 1 {
			r = r.Clone()
		}
		return r, true
	case "DIFF":
		r := bms[0].Clone()
		for _, b := range bms[1:] {
			r.AndNot(b)
		}
		return r, true
	default: // NOT
		if bms[0].IsEmpty() {
			return roaring.New(), true
		}
		if r, ok := complementRuns(bms[0], maxComplementRuns); ok {
			return r, true
		}
		return roaring.Flip(bms[0], 0, uint64(bms[0].Maximum())+1), true
	}
}

// xor is a XOR b as (a OR b) AND NOT (a AND b): the library's Xor turns
// run containers into bitsets, which is several times slower on the
// run-heavy keys of the whitepaper's set operations.
func xor(a, b *roaring.Bitmap) *roaring.Bitmap {
	r := roaring.Or(a, b)
	r.AndNot(roaring.And(a, b))
	return r
}

// maxComplementRuns bounds the runs complementRuns walks before NOT falls
// back to the library's Flip (which is faster for bitmaps of many runs).
const maxComplementRuns = 4096

// complementRuns is [0, max(a)] AND NOT a, built from a's runs: each run's
// end is found by galloping over CardinalityInRange, and each gap between
// runs is added as a range. It reports false when a has more than limit runs.
func complementRuns(a *roaring.Bitmap, limit int) (*roaring.Bitmap, bool) {
	out := roaring.New()
	hi := uint64(a.Maximum())
	it := a.Iterator()
	next := uint64(0) // the first value not yet decided
	for runs := 1; it.HasNext(); runs++ {
		if runs > limit {
			return nil, false
		}
		v := uint64(it.Next())
		if v > next {
			out.AddRange(next, v)
		}
		n := uint64(1) // the run [v, v+n) is in a
		if v < hi && a.Contains(uint32(v+1)) {
			k := uint64(2)
			for v+2*k <= hi+1 && a.CardinalityInRange(v, v+2*k) == 2*k {
				k *= 2
			}
			top := min(2*k, hi+1-v)
			for n = k; n < top; {
				mid := (n + top + 1) / 2
				if a.CardinalityInRange(v, v+mid) == mid {
					n = mid
				} else {
					top = mid - 1
				}
			}
		}
		next = v + n
		if next > hi {
			break
		}
		it.AdvanceIfNeeded(uint32(next))
	}
	return out, true
}

func trBitOp(c *conn, a [][]byte) {
	r, ok := c.bitop(a[2], a[3:])
	if !ok {
		return
	}
	if c.replaceBitmap(a[1], r) {
		c.out = resp.AppendInt(c.out, int64(r.GetCardinality()))
	}
}

func trBitOpCard(c *conn, a [][]byte) {
	bms := a[2:]
	// XOR of two sets and NOT are counted without building the result:
	// |A ^ B| = |A| + |B| - 2|A & B|, |NOT A| = max(A) + 1 - |A|.
	switch {
	case len(bms) == 2 && bytes.EqualFold(a[1], []byte("xor")):
		s, ok := c.sources(bms)
		if !ok {
			return
		}
		c.out = resp.AppendInt(c.out, int64(s[0].GetCardinality()+s[1].GetCardinality()-2*s[0].AndCardinality(s[1])))
		return
	case len(bms) == 1 && bytes.EqualFold(a[1], []byte("not")):
		s, ok := c.sources(bms)
		if !ok {
			return
		}
		n := uint64(0)
		if !s[0].IsEmpty() {
			n = uint64(s[0].Maximum()) + 1 - s[0].GetCardinality()
		}
		c.out = resp.AppendInt(c.out, int64(n))
		return
	}
	// AND and OR of two sets are counted without building the result.
	if len(bms) == 2 && (bytes.EqualFold(a[1], []byte("and")) || bytes.EqualFold(a[1], []byte("or"))) {
		s, ok := c.sources(bms)
		if !ok {
			return
		}
		if bytes.EqualFold(a[1], []byte("and")) {
			c.out = resp.AppendInt(c.out, int64(s[0].AndCardinality(s[1])))
		} else {
			c.out = resp.AppendInt(c.out, int64(s[0].OrCardinality(s[1])))
		}
		return
	}
	r, ok := c.bitop(a[1], bms)
	if !ok {
		return
	}
	c.out = resp.AppendInt(c.out, int64(r.GetCardinality()))
}

func trDiff(c *conn, a [][]byte) {
	s, ok := c.sources(a[2:4])
	if !ok {
		return
	}
	if c.replaceBitmap(a[1], roaring.AndNot(s[0], s[1])) {
		c.out = resp.AppendOK(c.out)
	}
}

func trJaccard(c *conn, a [][]byte) {
	s, ok := c.sources(a[1:3])
	if !ok {
		return
	}
	inter := s[0].AndCardinality(s[1])
	union := s[0].OrCardinality(s[1])
	v := 0.0
	if union > 0 {
		v = float64(inter) / float64(union)
	}
	c.out = resp.AppendBulkString(c.out, strconv.FormatFloat(v, 'f', -1, 64))
}

// trContains replies 1 when key1's set is a subset of key2's (a missing
// key is the empty set).
func trContains(c *conn, a [][]byte) {
	s, ok := c.sources(a[1:3])
	if !ok {
		return
	}
	if s[0].AndCardinality(s[1]) == s[0].GetCardinality() {
		c.out = resp.AppendInt(c.out, 1)
	} else {
		c.out = resp.AppendInt(c.out, 0)
	}
}

// trLoadString replaces key with the bits of the '0'/'1' text stored at
// stringkey and replies the number of bits set.
func trLoadString(c *conn, a [][]byte) {
	sv, found, ok := lookup[*stringValue](c, a[2])
	if !ok {
		return
	}
	if !found {
		c.out = resp.AppendInt(c.out, 0)
		return
	}
	if !validBits(sv.b) {
		c.fail(errBitArray)
		return
	}
	bm := roaring.New()
	for i, ch := range sv.b {
		if ch == '1' {
			bm.Add(uint32(i))
		}
	}
	if c.replaceBitmap(a[1], bm) {
		c.out = resp.AppendInt(c.out, int64(bm.GetCardinality()))
	}
}
