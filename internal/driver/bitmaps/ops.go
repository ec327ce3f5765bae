package bitmaps

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	rb "github.com/RoaringBitmap/roaring/v2"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// Operation names.
const (
	OpMembership = "membership"
	OpCount      = "count"
	OpCountRange = "count-range"
	OpRank       = "rank"
	OpKth        = "kth"
	OpAndCard2   = "and-card-2"
	OpOrCard2    = "or-card-2"
	OpAndCardAll = "and-card-all"
	OpOrCardAll  = "or-card-all"
	OpBitopAnd   = "bitop-and"
	OpAdd        = "add"
)

// Op is one question asked of every structure. In its commands, {k0} and
// {k1} are the first two keys, {all} every key and {n} their number,
// {nk} that number plus one, {dst} the scratch key, {lo} and {hi} the
// range of count-range, {sha} the BITOP-and-count script; __RAND__ draws an
// ID below the universe and __RAND2__ a rank from 1 to the first key's
// cardinality.
type Op struct {
	Name     string
	Question string
	// Keys is how many keys the question needs (1, 2, or 0 for all).
	Keys int
	// Commands per structure; a structure missing here cannot answer,
	// and Unsupported says why.
	Commands    map[string]string
	Unsupported map[string]string
	// Probe says the answer's __RAND__ or __RAND2__ is drawn (else the
	// question has one answer).
	Probe bool
	// Mutates marks the one operation that changes the keys (run last).
	Mutates bool
}

// Ops lists the operations in the order they run (add last).
var Ops = []Op{
	{Name: OpMembership, Question: "is ID x in the set?", Keys: 1, Probe: true, Commands: map[string]string{
		TairRoaring: "TR.GETBIT {k0} __RAND__", RedisBitmap: "GETBIT {k0} __RAND__", RedisSet: "SISMEMBER {k0} __RAND__"}},
	{Name: OpCount, Question: "how many IDs?", Keys: 1, Commands: map[string]string{
		TairRoaring: "TR.BITCOUNT {k0}", RedisBitmap: "BITCOUNT {k0}", RedisSet: "SCARD {k0}"}},
	{Name: OpCountRange, Question: "how many IDs in the middle half of the universe?", Keys: 1, Commands: map[string]string{
		TairRoaring: "TR.BITCOUNT {k0} {lo} {hi}", RedisBitmap: "BITCOUNT {k0} {lo} {hi} BIT"},
		Unsupported: map[string]string{RedisSet: "a set has no order, so no range to count"}},
	{Name: OpRank, Question: "how many IDs are ≤ x?", Keys: 1, Probe: true, Commands: map[string]string{
		TairRoaring: "TR.RANK {k0} __RAND__", RedisBitmap: "BITCOUNT {k0} 0 __RAND__ BIT"},
		Unsupported: map[string]string{RedisSet: "a set has no order, so no rank"}},
	{Name: OpKth, Question: "which is the k-th smallest ID?", Keys: 1, Probe: true, Commands: map[string]string{
		TairRoaring: "TR.BITPOS {k0} 1 __RAND2__"},
		Unsupported: map[string]string{RedisBitmap: "no command finds the k-th set bit (BITPOS finds the first)",
			RedisSet: "a set has no order, so no k-th member"}},
	{Name: OpAndCard2, Question: "how many IDs are in both of two sets?", Keys: 2, Commands: map[string]string{
		TairRoaring: "TR.BITOPCARD AND {k0} {k1}", RedisBitmap: "EVALSHA {sha} 3 {dst} {k0} {k1} AND", RedisSet: "SINTERCARD 2 {k0} {k1}"}},
	{Name: OpOrCard2, Question: "how many IDs are in either of two sets?", Keys: 2, Commands: map[string]string{
		TairRoaring: "TR.BITOPCARD OR {k0} {k1}", RedisBitmap: "EVALSHA {sha} 3 {dst} {k0} {k1} OR", RedisSet: "SUNIONSTORE {dst} {k0} {k1}"}},
	{Name: OpAndCardAll, Question: "how many IDs are in every set?", Keys: 0, Commands: map[string]string{
		TairRoaring: "TR.BITOPCARD AND {all}", RedisBitmap: "EVALSHA {sha} {nk} {dst} {all} AND", RedisSet: "SINTERCARD {n} {all}"}},
	{Name: OpOrCardAll, Question: "how many IDs are in any set?", Keys: 0, Commands: map[string]string{
		TairRoaring: "TR.BITOPCARD OR {all}", RedisBitmap: "EVALSHA {sha} {nk} {dst} {all} OR", RedisSet: "SUNIONSTORE {dst} {all}"}},
	{Name: OpBitopAnd, Question: "store the intersection of two sets in a third key", Keys: 2, Commands: map[string]string{
		TairRoaring: "TR.BITOP {dst} AND {k0} {k1}", RedisBitmap: "BITOP AND {dst} {k0} {k1}", RedisSet: "SINTERSTORE {dst} {k0} {k1}"}},
	{Name: OpAdd, Question: "add ID x (was it there already?)", Keys: 1, Probe: true, Mutates: true, Commands: map[string]string{
		TairRoaring: "TR.SETBIT {k0} __RAND__ 1", RedisBitmap: "SETBIT {k0} __RAND__ 1", RedisSet: "SADD {k0} __RAND__"}},
}

// OpByName finds an operation.
func OpByName(name string) (Op, bool) {
	for _, o := range Ops {
		if o.Name == name {
			return o, true
		}
	}
	return Op{}, false
}

// Template is the structure's command for op over keys keys and the
// universe, or "" when it cannot answer.
func (s *Store) Template(op Op, keys int, universe uint64) string {
	tmpl, ok := op.Commands[s.Kind]
	if !ok {
		return ""
	}
	all := make([]string, keys)
	for i := range all {
		all[i] = s.Key(i)
	}
	lo, hi := MiddleHalf(universe)
	r := strings.NewReplacer("{k0}", s.Key(0), "{k1}", s.Key(min(1, keys-1)), "{all}", strings.Join(all, " "),
		"{n}", strconv.Itoa(keys), "{nk}", strconv.Itoa(keys+1), "{dst}", s.Scratch(),
		"{lo}", strconv.FormatUint(lo, 10), "{hi}", strconv.FormatUint(hi, 10), "{sha}", s.sha)
	return r.Replace(tmpl)
}

// MiddleHalf is count-range's inclusive range: the middle half of the
// universe (all of a universe below 4).
func MiddleHalf(universe uint64) (lo, hi uint64) {
	if universe < 4 {
		return 0, universe - 1
	}
	return universe / 4, universe/4*3 - 1
}

// Ask sends op's command once with probe in place of __RAND__ (or
// __RAND2__) and returns the answer as every structure words it: 0/1 for
// membership and for add ("was it there already?"), a count, a rank, an ID
// (-1 for none). bitop-and answers the stored key's cardinality.
func (s *Store) Ask(ctx context.Context, op Op, keys int, universe, probe uint64) (int64, error) {
	tmpl := s.Template(op, keys, universe)
	if tmpl == "" {
		return 0, fmt.Errorf("%s cannot answer %s", s.Kind, op.Name)
	}
	p := strconv.FormatUint(probe, 10)
	tmpl = strings.NewReplacer("__RAND__", p, "__RAND2__", p).Replace(tmpl)
	var args []any
	for _, f := range strings.Fields(tmpl) {
		args = append(args, f)
	}
	n, err := s.c.Do(ctx, args...).Int64()
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %w", s.Target.Addr, tmpl, err)
	}
	switch op.Name {
	case OpBitopAnd:
		return s.Count(ctx, s.Scratch())
	case OpAdd:
		if s.Kind == RedisSet {
			return 1 - n, nil // SADD says whether it added
		}
	case OpRank:
		if s.Kind == TairRoaring && n < 0 {
			return 0, nil // TR.RANK of a missing key
		}
	}
	return n, nil
}

// Iterate reads every member of key in pages (TR.SCAN, GETRANGE of 64 KiB,
// SSCAN) and hands each to fn; it returns how many it read and how long
// the pass took.
func (s *Store) Iterate(ctx context.Context, key string, fn func(uint32)) (uint64, time.Duration, error) {
	start := time.Now()
	var n uint64
	var err error
	switch s.Kind {
	case TairRoaring:
		n, err = s.scanRoaring(ctx, key, fn)
	case RedisBitmap:
		n, err = s.scanBitmap(ctx, key, fn)
	default:
		n, err = s.scanSet(ctx, key, fn)
	}
	return n, time.Since(start), err
}

func (s *Store) scanRoaring(ctx context.Context, key string, fn func(uint32)) (uint64, error) {
	var n uint64
	cursor := int64(0)
	for {
		rep, err := s.c.Do(ctx, "TR.SCAN", key, cursor, "COUNT", 4096).Slice()
		if err != nil || len(rep) != 2 {
			return n, fmt.Errorf("%s: TR.SCAN %s %d: %v (reply %v)", s.Target.Addr, key, cursor, err, rep)
		}
		vals, _ := rep[1].([]any)
		for _, v := range vals {
			id, ok := v.(int64)
			if !ok {
				return n, fmt.Errorf("%s: TR.SCAN gave %v, not an integer", s.Target.Addr, v)
			}
			fn(uint32(id))
			n++
		}
		next, _ := rep[0].(int64)
		if next == 0 {
			return n, nil
		}
		cursor = next
	}
}

func (s *Store) scanBitmap(ctx context.Context, key string, fn func(uint32)) (uint64, error) {
	size, err := s.c.StrLen(ctx, key).Result()
	if err != nil {
		return 0, fmt.Errorf("%s: STRLEN %s: %w", s.Target.Addr, key, err)
	}
	var n uint64
	const page = 64 << 10
	for off := int64(0); off < size; off += page {
		b, err := s.c.GetRange(ctx, key, off, min(off+page, size)-1).Bytes()
		if err != nil {
			return n, fmt.Errorf("%s: GETRANGE %s: %w", s.Target.Addr, key, err)
		}
		for i, c := range b {
			for bit := 0; c != 0 && bit < 8; bit++ {
				if c&(0x80>>bit) != 0 {
					fn(uint32((off+int64(i))*8 + int64(bit)))
					n++
				}
			}
		}
	}
	return n, nil
}

func (s *Store) scanSet(ctx context.Context, key string, fn func(uint32)) (uint64, error) {
	var n uint64
	var cursor uint64
	for {
		members, next, err := s.c.SScan(ctx, key, cursor, "", 4096).Result()
		if err != nil {
			return n, fmt.Errorf("%s: SSCAN %s: %w", s.Target.Addr, key, err)
		}
		for _, m := range members {
			id, err := strconv.ParseUint(m, 10, 32)
			if err != nil {
				return n, fmt.Errorf("%s: %s holds %q, not an ID", s.Target.Addr, key, m)
			}
			fn(uint32(id))
			n++
		}
		if next == 0 {
			return n, nil
		}
		cursor = next
	}
}

// ReadKey reads every ID of an existing key on t, whatever structure it
// is (TYPE: a set, a string read as a bitmap, a TairRoaring bitmap), and
// returns them with the structure's name.
func ReadKey(ctx context.Context, t endpoint.Target, key string) (*rb.Bitmap, string, error) {
	c, err := transport.NewClient(ctx, t, 1)
	if err != nil {
		return nil, "", err
	}
	defer c.Close()
	typ, err := c.Type(ctx, key).Result()
	if err != nil {
		return nil, "", fmt.Errorf("%s: TYPE %s: %w", t.Addr, key, err)
	}
	s := &Store{Target: t, c: c}
	switch {
	case typ == "set":
		s.Kind = RedisSet
	case typ == "string":
		s.Kind = RedisBitmap
	case strings.Contains(strings.ToLower(typ), "roaring"):
		s.Kind = TairRoaring
	case typ == "none":
		return nil, "", fmt.Errorf("%s: key %s does not exist", t.Addr, key)
	default:
		return nil, "", fmt.Errorf("%s: key %s is a %s, not a set, a bitmap or a TairRoaring bitmap", t.Addr, key, typ)
	}
	bm := rb.New()
	if _, _, err := s.Iterate(ctx, key, func(v uint32) { bm.Add(v) }); err != nil {
		return nil, "", err
	}
	return bm, s.Kind, nil
}
