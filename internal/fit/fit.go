// Package fit reads a trace (internal/trace) into a model a person can
// read: its keys grouped into patterns (user:{id}:cart) and, per pattern,
// the command mix, how many keys and how their popularity is spread (a
// Zipf exponent fitted by maximum likelihood, with its distance from the
// keys' counts, or the hot keys when no Zipf law fits), value sizes, TTLs
// and how soon keys are read after a write and used again; per trace, the
// rate, its burstiness, pipelining and MULTI use. The model becomes a
// workload (internal/workload): weighted templates that run at any rate.
package fit

import (
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/commands"
	"github.com/tairbench/tairbench/internal/keyshape"
	"github.com/tairbench/tairbench/internal/trace"
)

// MaxKeys is how many distinct keys a fit follows: past it, new keys are
// counted in their pattern's commands but not followed one by one.
const MaxKeys = 5_000_000

// burstGap is how close two commands of one connection come to count as
// sent together (a pipeline: MONITOR dates commands to the microsecond).
const burstGap = 50 * time.Microsecond

// Fitter takes a trace's records one by one.
type Fitter struct {
	patterns map[string]*patternAcc
	order    []*patternAcc
	keys     map[string]*keyState
	conns    map[uint32]*connState
	unkeyed  map[string]int64
	windows  []int64 // commands per 100 ms
	commands int64
	inMulti  int64
	bursts   int64
	span     time.Duration
	capped   bool
	seed     uint64
}

// keyState is one key's history.
type keyState struct {
	p         *patternAcc
	count     int64
	last      time.Duration
	lastWrite time.Duration // −1: never written
}

// connState is one connection's place: its last command's time and
// whether it is inside MULTI.
type connState struct {
	last  time.Duration
	multi bool
	seen  bool
}

// New returns an empty fitter.
func New() *Fitter {
	return &Fitter{patterns: map[string]*patternAcc{}, keys: map[string]*keyState{}, conns: map[uint32]*connState{},
		unkeyed: map[string]int64{}}
}

// Add takes one record.
func (f *Fitter) Add(r *trace.Record) {
	name := strings.ToUpper(string(r.Args[0]))
	f.commands++
	f.span = max(f.span, r.At)
	if w := int(r.At / (100 * time.Millisecond)); w < 1<<24 {
		for len(f.windows) <= w {
			f.windows = append(f.windows, 0)
		}
		f.windows[w]++
	}
	f.connection(r, name)
	keys := commands.KeyPositions(name, len(r.Args))
	if len(keys) == 0 {
		f.unkeyed[name]++
		return
	}
	write := isWrite(name)
	for i, k := range keys {
		key := string(r.Args[k])
		pattern, id := keyshape.Pattern(key)
		p := f.pattern(pattern)
		if i == 0 {
			p.command(name, r.Args, k, id)
		}
		f.key(p, key, r.At, write)
	}
}

// connection follows a connection's bursts and MULTI blocks.
func (f *Fitter) connection(r *trace.Record, name string) {
	c := f.conns[r.Conn]
	if c == nil {
		c = &connState{}
		f.conns[r.Conn] = c
	}
	if !c.seen || r.At-c.last > burstGap {
		f.bursts++
	}
	c.seen, c.last = true, r.At
	switch name {
	case "MULTI":
		c.multi = true
		f.inMulti++
	case "EXEC", "DISCARD":
		c.multi = false
		f.inMulti++
	default:
		if c.multi {
			f.inMulti++
		}
	}
}

// pattern is the accumulator of a pattern, made on first sight.
func (f *Fitter) pattern(name string) *patternAcc {
	p := f.patterns[name]
	if p == nil {
		f.seed++
		p = newPatternAcc(name, f.seed)
		f.patterns[name] = p
		f.order = append(f.order, p)
	}
	return p
}

// key follows one key's use: its count, reuse and read-after-write times.
func (f *Fitter) key(p *patternAcc, key string, at time.Duration, write bool) {
	k := f.keys[key]
	if k == nil {
		p.keys++
		if len(f.keys) >= MaxKeys {
			f.capped = true
			return
		}
		k = &keyState{p: p, lastWrite: -1}
		f.keys[key] = k
	} else {
		p.reuse.add(float64(at-k.last) / float64(time.Millisecond))
	}
	k.count++
	k.last = at
	switch {
	case write:
		k.lastWrite = at
	case k.lastWrite >= 0:
		p.raw.add(float64(at-k.lastWrite) / float64(time.Millisecond))
	}
}

// extraWrites are writing commands the command catalog does not list.
var extraWrites = map[string]bool{
	"SETNX": true, "SETEX": true, "PSETEX": true, "GETSET": true, "GETDEL": true, "MSET": true, "MSETNX": true,
	"DECR": true, "DECRBY": true, "INCRBYFLOAT": true, "HMSET": true, "HSETNX": true, "HDEL": true, "HINCRBY": true,
	"LPUSH": true, "LPOP": true, "RPOP": true, "LREM": true, "LSET": true, "LTRIM": true, "SREM": true, "SPOP": true,
	"ZADD": true, "ZREM": true, "ZINCRBY": true, "UNLINK": true, "EXPIRE": true, "PEXPIRE": true, "EXPIREAT": true,
	"PERSIST": true, "RENAME": true, "PFADD": true, "XADD": true, "BITOP": true, "GETEX": true,
}

// isWrite says whether a command changes its key.
func isWrite(name string) bool {
	c, ok := commands.Lookup(name)
	return ok && c.Write || extraWrites[name]
}
