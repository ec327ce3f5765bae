// Package bitmaps drives the three structures a set of integer IDs can take
// on a RESP server: TairRoaring bitmaps (TR.*), Redis bitmaps (SETBIT,
// BITCOUNT, BITOP) and Redis sets (SADD, SISMEMBER, SINTERCARD). It loads
// sets, reads their memory, asks each the same questions (for the
// cross-check) and gives each operation's command template (for the timed
// runs); what the answers should be is the front-end's business.
package bitmaps

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	rb "github.com/RoaringBitmap/roaring/v2"
	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// Structure names, as results record them.
const (
	TairRoaring = "tairroaring"
	RedisBitmap = "redis-bitmap"
	RedisSet    = "redis-set"
)

// Structures lists every structure, in the order tables show them.
var Structures = []string{TairRoaring, RedisBitmap, RedisSet}

// bitopCount is the Lua script that stores BITOP ARGV[1] of KEYS[2..] in
// KEYS[1] and returns its BITCOUNT: a Redis bitmap's answer to "how many
// IDs are in the intersection (union)" in one request.
const bitopCount = "redis.call('BITOP', ARGV[1], KEYS[1], unpack(KEYS, 2)); return redis.call('BITCOUNT', KEYS[1])"

// Store is one structure on one server, its keys named Prefix:KIND:i.
type Store struct {
	Kind   string
	Target endpoint.Target
	prefix string
	c      *goredis.Client
	sha    string
}

// required are the commands each structure's loads, probes and runs send.
var required = map[string][]string{
	TairRoaring: {"TR.SETBITS", "TR.GETBIT", "TR.BITCOUNT", "TR.RANK", "TR.BITPOS", "TR.BITOPCARD", "TR.BITOP", "TR.SCAN", "TR.STAT", "MEMORY"},
	RedisBitmap: {"SETBIT", "SETRANGE", "GETBIT", "BITCOUNT", "BITOP", "GETRANGE", "EVALSHA", "MEMORY"},
	RedisSet:    {"SADD", "SISMEMBER", "SCARD", "SINTERCARD", "SUNIONSTORE", "SINTERSTORE", "SSCAN", "MEMORY"},
}

// Open connects to t for structure kind and checks that t knows every
// command the structure needs.
func Open(ctx context.Context, kind string, t endpoint.Target, prefix string) (*Store, error) {
	names, ok := required[kind]
	if !ok {
		return nil, fmt.Errorf("unknown structure %q (%s)", kind, strings.Join(Structures, ", "))
	}
	module := map[string]string{TairRoaring: "TairRoaring", RedisBitmap: "Redis bitmap", RedisSet: "Redis set"}[kind]
	if err := redis.RequireCommands(ctx, t, module, names...); err != nil {
		var ue *redis.UnsupportedError
		if errors.As(err, &ue) && kind != TairRoaring {
			return nil, fmt.Errorf("%s does not know %s, which Redis %s need (Redis 7 or later)", t.Addr, ue.Command, module+"s")
		}
		return nil, err
	}
	c, err := transport.NewClient(ctx, t, 2)
	if err != nil {
		return nil, err
	}
	s := &Store{Kind: kind, Target: t, prefix: prefix, c: c}
	if kind == RedisBitmap {
		if s.sha, err = c.ScriptLoad(ctx, bitopCount).Result(); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: SCRIPT LOAD: %w", t.Addr, err)
		}
	}
	return s, nil
}

// Close closes the connections.
func (s *Store) Close() error { return s.c.Close() }

// Key is the name of key i.
func (s *Store) Key(i int) string { return fmt.Sprintf("%s:%s:%d", s.prefix, s.Kind, i) }

// Scratch is the key set operations store into.
func (s *Store) Scratch() string { return fmt.Sprintf("%s:%s:dst", s.prefix, s.Kind) }

// Clear deletes keys 0 … n-1 and the scratch key.
func (s *Store) Clear(ctx context.Context, n int) error {
	keys := []string{s.Scratch()}
	for i := 0; i < n; i++ {
		keys = append(keys, s.Key(i))
	}
	if err := s.c.Del(ctx, keys...).Err(); err != nil {
		return fmt.Errorf("%s: DEL: %w", s.Target.Addr, err)
	}
	return nil
}

// UsedMemory is INFO memory's used_memory.
func (s *Store) UsedMemory(ctx context.Context) (int64, error) {
	info, err := s.c.Info(ctx, "memory").Result()
	if err != nil {
		return 0, fmt.Errorf("%s: INFO memory: %w", s.Target.Addr, err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "used_memory:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, fmt.Errorf("%s: INFO memory has no used_memory", s.Target.Addr)
}

// CommandTime is INFO commandstats' calls and usec of one command (its
// name as the server lists it, e.g. "bitop" or "tr.bitopcard"); 0, 0 when
// the server lists no calls of it.
func (s *Store) CommandTime(ctx context.Context, name string) (calls, usec int64, err error) {
	info, err := s.c.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, 0, fmt.Errorf("%s: INFO commandstats: %w", s.Target.Addr, err)
	}
	prefix := "cmdstat_" + strings.ToLower(name) + ":"
	for _, l := range strings.Split(info, "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(l), prefix)
		if !ok {
			continue
		}
		for _, kv := range strings.Split(v, ",") {
			f, n, _ := strings.Cut(kv, "=")
			switch f {
			case "calls":
				calls, _ = strconv.ParseInt(n, 10, 64)
			case "usec":
				usec, _ = strconv.ParseInt(n, 10, 64)
			}
		}
	}
	return calls, usec, nil
}

// Memory is MEMORY USAGE of key (SAMPLES 0: every element counted).
func (s *Store) Memory(ctx context.Context, key string) (uint64, error) {
	n, err := s.c.Do(ctx, "MEMORY", "USAGE", key, "SAMPLES", "0").Int64()
	if err != nil {
		return 0, fmt.Errorf("%s: MEMORY USAGE %s: %w", s.Target.Addr, key, err)
	}
	return uint64(n), nil
}

// DataBytes is the payload of key alone: TR.STAT's container bytes for
// TairRoaring, STRLEN for a Redis bitmap, 0 for a set (no such figure).
func (s *Store) DataBytes(ctx context.Context, key string) (uint64, error) {
	switch s.Kind {
	case TairRoaring:
		stat, err := s.c.Do(ctx, "TR.STAT", key).Text()
		if err != nil {
			return 0, fmt.Errorf("%s: TR.STAT: %w", s.Target.Addr, err)
		}
		var total uint64
		for _, l := range strings.Split(stat, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(l), ": ")
			if ok && strings.HasSuffix(k, "container bytes") {
				n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				if err != nil {
					return 0, fmt.Errorf("%s: TR.STAT %q: %w", s.Target.Addr, l, err)
				}
				total += n
			}
		}
		return total, nil
	case RedisBitmap:
		n, err := s.c.StrLen(ctx, key).Result()
		return uint64(n), err
	}
	return 0, nil
}

// Encoding is OBJECT ENCODING of key on Redis ("" for TairRoaring).
func (s *Store) Encoding(ctx context.Context, key string) string {
	if s.Kind == TairRoaring {
		return ""
	}
	enc, err := s.c.ObjectEncoding(ctx, key).Result()
	if err != nil {
		return "?"
	}
	return enc
}

// LoadStats is how one key was written.
type LoadStats struct {
	Commands int64
	Elapsed  time.Duration
}

// Load writes bm as key i, pipelined: TR.SETBITS and SADD of 1,000 IDs a
// command; a Redis bitmap as SETRANGE of each 4 KiB stretch dense enough to
// be cheaper that way, SETBIT otherwise (the highest byte first, so the
// string is allocated once at its final size). It checks the cardinality
// the server reports afterwards.
func (s *Store) Load(ctx context.Context, i int, bm *rb.Bitmap) (LoadStats, error) {
	start := time.Now()
	key := s.Key(i)
	var cmds [][]any
	switch s.Kind {
	case TairRoaring:
		cmds = batches(bm, "TR.SETBITS", key)
	case RedisSet:
		cmds = batches(bm, "SADD", key)
	case RedisBitmap:
		cmds = bitmapCommands(bm, key)
	}
	for lo := 0; lo < len(cmds); lo += 256 {
		if err := ctx.Err(); err != nil {
			return LoadStats{}, err
		}
		p := s.c.Pipeline()
		for _, c := range cmds[lo:min(lo+256, len(cmds))] {
			p.Do(ctx, c...)
		}
		if _, err := p.Exec(ctx); err != nil {
			return LoadStats{}, fmt.Errorf("%s: load %s: %w", s.Target.Addr, key, err)
		}
	}
	st := LoadStats{Commands: int64(len(cmds)), Elapsed: time.Since(start)}
	n, err := s.Count(ctx, key)
	if err != nil {
		return st, err
	}
	if uint64(n) != bm.GetCardinality() {
		return st, fmt.Errorf("%s: %s holds %d IDs after the load, not %d: the load is partial", s.Target.Addr, key, n, bm.GetCardinality())
	}
	return st, nil
}

// batches are cmd key id … commands of at most 1,000 IDs.
func batches(bm *rb.Bitmap, cmd, key string) [][]any {
	var out [][]any
	it := bm.ManyIterator()
	buf := make([]uint32, 1000)
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		c := make([]any, 0, n+2)
		c = append(c, cmd, key)
		for _, v := range buf[:n] {
			c = append(c, v)
		}
		out = append(out, c)
	}
	return out
}

// bitmapCommands writes bm as a Redis bitmap: one SETBIT of the highest ID
// first, then per 4 KiB stretch either its SETBITs or one SETRANGE.
func bitmapCommands(bm *rb.Bitmap, key string) [][]any {
	if bm.IsEmpty() {
		return nil
	}
	const stretch = 4096 * 8 // bits
	out := [][]any{{"SETBIT", key, bm.Maximum(), 1}}
	it := bm.ManyIterator()
	buf := make([]uint32, 4096)
	var ids []uint32
	flush := func() {
		if len(ids) == 0 {
			return
		}
		base := ids[0] / stretch * stretch
		if len(ids)*40 < stretch/8 { // a SETBIT is about 40 bytes on the wire
			for _, v := range ids {
				out = append(out, []any{"SETBIT", key, v, 1})
			}
		} else {
			b := make([]byte, stretch/8)
			for _, v := range ids {
				off := v - base
				b[off/8] |= 0x80 >> (off % 8)
			}
			last := (ids[len(ids)-1] - base) / 8
			out = append(out, []any{"SETRANGE", key, base / 8, string(b[:last+1])})
		}
		ids = ids[:0]
	}
	for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
		for _, v := range buf[:n] {
			if len(ids) > 0 && v/stretch != ids[0]/stretch {
				flush()
			}
			ids = append(ids, v)
		}
	}
	flush()
	return out
}

// Count is the number of IDs in key.
func (s *Store) Count(ctx context.Context, key string) (int64, error) {
	var cmd []any
	switch s.Kind {
	case TairRoaring:
		cmd = []any{"TR.BITCOUNT", key}
	case RedisBitmap:
		cmd = []any{"BITCOUNT", key}
	default:
		cmd = []any{"SCARD", key}
	}
	n, err := s.c.Do(ctx, cmd...).Int64()
	if err != nil {
		return 0, fmt.Errorf("%s: %v: %w", s.Target.Addr, cmd[0], err)
	}
	return n, nil
}
