package replay

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/commands"
	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/pkg/resp"
)

// Schedule is a replay's commands, connection by connection.
type Schedule struct {
	Conns []*Conn
	// Ops names the operation types: command names, then Other.
	Ops []string
	// Commands is how many commands are replayed; Span the last one's
	// captured time.
	Commands int64
	Span     time.Duration
	// Bytes is what the commands take in memory.
	Bytes int64
	// Mix counts the commands replayed, by name, most first.
	Mix []Count
	// Dropped counts the commands not replayed, each line a command and
	// the reason.
	Dropped []Count
	// Selects counts the SELECTs added where a connection was in
	// another database than the replay's.
	Selects int64
	// Unwritten are the keys the replay reads (with a command that
	// tairbench knows how to fill) and never writes, with the reading
	// command; set when Build is asked to track them.
	Unwritten []Unwritten
	// ValueSize is the median size of the values the trace SETs (0:
	// none).
	ValueSize int
}

// DefaultMaxOps is how many operation types a replay has at most when
// Options.MaxOps is 0.
const DefaultMaxOps = 32

// Unwritten is a key read and never written, its first reader, and its
// value's size when a captured reply told it (0: unknown).
type Unwritten struct {
	Key     string
	Command string
	Size    int
}

// Conn is one connection's commands: each one's captured time, RESP
// bytes and operation type.
type Conn struct {
	due  []time.Duration
	ends []uint32
	ops  []uint16
	buf  []byte
	// kinds are the replies' kinds the capture saw (nil: none known).
	kinds []byte
}

// Len is how many commands the connection sends.
func (c *Conn) Len() int { return len(c.due) }

// irregular are commands whose keys COMMAND INFO's first, last and step
// cannot place (TR.BITOP destkey op key ...): tairbench places them
// itself.
var irregular = map[string]bool{"TR.BITOP": true, "TR.BITOPCARD": true}

// nameInfo is what Build decided for one command name.
type nameInfo struct {
	name   string
	op     int    // operation type; −1 when dropped
	reason string // why it is dropped
	spec   driver.KeySpec
	fill   bool // a read whose key --preload can fill
}

// builder is Build's state.
type builder struct {
	o        Options
	s        *Schedule
	names    map[string]*nameInfo
	conns    map[uint32]*connState
	dropped  map[string]int64
	sent     map[string]int64
	ops      map[string]int
	sizes    []int
	track    bool
	read     map[string]Unwritten
	written  map[string]bool
	selectOp int
}

// connState is a connection's place in the schedule and its database.
type connState struct {
	c  *Conn
	db uint32
}

// Build reads the trace again and makes its schedule: the census's names,
// checked against specs (the target's), decide what is sent and where the
// prefix goes. trackReads keeps the keys read and never written.
func Build(r Records, c *Census, specs Specs, o Options, trackReads bool) (*Schedule, error) {
	if o.Shards < 1 {
		o.Shards = 1
	}
	if o.MaxOps == 0 {
		o.MaxOps = DefaultMaxOps
	}
	o.MaxOps = max(o.MaxOps, 2)
	b := &builder{o: o, s: &Schedule{}, names: map[string]*nameInfo{}, conns: map[uint32]*connState{},
		dropped: map[string]int64{}, sent: map[string]int64{}, ops: map[string]int{}, track: trackReads, selectOp: -1}
	if trackReads {
		b.read, b.written = map[string]Unwritten{}, map[string]bool{}
	}
	if err := b.decide(c, specs); err != nil {
		return nil, err
	}
	var rec trace.Record
	for {
		err := r.Read(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := b.add(&rec); err != nil {
			return nil, err
		}
	}
	b.finish()
	return b.s, nil
}

// decide settles, name by name, what is sent and its operation type; a
// command the target does not know (unless skipped) or whose keys the
// prefix cannot find is refused.
func (b *builder) decide(c *Census, specs Specs) error {
	var unknown, movable []string
	kept := 0
	for _, n := range c.Names {
		spec, ok := specs[n.Name]
		info := &nameInfo{name: n.Name, op: -1, spec: spec}
		b.names[n.Name] = info
		switch {
		case dropped[n.Name] != "":
			info.reason = dropped[n.Name]
		case !ok || !spec.Known:
			if !b.o.SkipUnknown {
				unknown = append(unknown, fmt.Sprintf("%s (%d)", n.Name, n.N))
			}
			info.reason = "the target does not know it (--skip-unknown)"
		case b.o.KeyPrefix != "" && wipes[n.Name]:
			info.reason = "it would reach past --key-prefix to live keys"
		case b.o.KeyPrefix != "" && spec.Movable && !irregular[n.Name]:
			movable = append(movable, fmt.Sprintf("%s (%d)", n.Name, n.N))
		case n.Name != "SELECT" && (b.o.Only == Reads && !spec.ReadOnly || b.o.Only == Writes && !spec.Write):
			info.reason = "--only " + [...]string{"", "reads", "writes"}[b.o.Only]
		default:
			info.op = b.opFor(n.Name, len(c.Names)-kept)
			kept++
			if cmd, ok := commands.Lookup(n.Name); ok && spec.ReadOnly && cmd.Fill != nil {
				info.fill = true
			}
		}
	}
	switch {
	case len(unknown) > 0:
		return fmt.Errorf("the target does not know %s: replay against a server that has them, or drop them with --skip-unknown",
			strings.Join(unknown, ", "))
	case len(movable) > 0:
		return fmt.Errorf("--key-prefix cannot place its prefix in %s: their keys depend on their arguments", strings.Join(movable, ", "))
	case kept == 0:
		return fmt.Errorf("none of the trace's commands is left to replay")
	}
	return nil
}

// opFor gives a name its operation type: its own while there is room
// (left more names may come), Other past Options.MaxOps.
func (b *builder) opFor(name string, left int) int {
	if i, ok := b.ops[name]; ok {
		return i
	}
	named := len(b.s.Ops)
	if named > 0 && b.s.Ops[named-1] == Other {
		return named - 1
	}
	if named == b.o.MaxOps-1 && left > 1 {
		b.s.Ops = append(b.s.Ops, Other)
		return named
	}
	b.ops[name] = named
	b.s.Ops = append(b.s.Ops, name)
	return named
}

// add places one record.
func (b *builder) add(rec *trace.Record) error {
	info := b.names[string(rec.Args[0])]
	if info == nil {
		info = b.names[upper(rec.Args[0])]
		if info == nil {
			return fmt.Errorf("%s is not in the trace's census", rec.Args[0])
		}
		b.names[string(rec.Args[0])] = info
	}
	if info.op < 0 {
		b.dropped[info.name+": "+info.reason]++
		return nil
	}
	if int(rec.Conn%uint32(b.o.Shards)) != b.o.Shard {
		return nil
	}
	st := b.conns[rec.Conn]
	if st == nil {
		st = &connState{c: &Conn{}}
		b.conns[rec.Conn] = st
		b.s.Conns = append(b.s.Conns, st.c)
	}
	due := rec.At
	if info.name == "SELECT" {
		if len(rec.Args) == 2 {
			if db, err := strconv.ParseUint(string(rec.Args[1]), 10, 32); err == nil {
				st.db = uint32(db)
			}
		}
	} else if rec.DB != st.db {
		if b.selectOp < 0 {
			b.selectOp = b.opFor("SELECT", 1)
		}
		if err := b.push(st.c, due, b.selectOp, [][]byte{[]byte("SELECT"), strconv.AppendUint(nil, uint64(rec.DB), 10)}, nil, trace.ReplyUnknown); err != nil {
			return err
		}
		st.db = rec.DB
		b.s.Selects++
		b.sent["SELECT"]++
	}
	keys := info.spec.Keys(len(rec.Args))
	if irregular[info.name] {
		keys = commands.KeyPositions(info.name, len(rec.Args))
	}
	b.note(info, rec, keys)
	b.sent[info.name]++
	return b.push(st.c, due, info.op, rec.Args, keys, rec.Reply)
}

// push encodes one command at the end of c, the prefix before each key,
// with the kind of reply the capture saw it get.
func (b *builder) push(c *Conn, due time.Duration, op int, args [][]byte, keys []int, reply byte) error {
	start := len(c.buf)
	c.buf = resp.AppendArray(c.buf, len(args))
	p := b.o.KeyPrefix
	for i, a := range args {
		if p != "" && slices.Contains(keys, i) {
			c.buf = append(c.buf, '$')
			c.buf = strconv.AppendInt(c.buf, int64(len(p)+len(a)), 10)
			c.buf = append(append(append(append(c.buf, '\r', '\n'), p...), a...), '\r', '\n')
			continue
		}
		c.buf = resp.AppendBulk(c.buf, a)
	}
	if len(c.buf) > math.MaxUint32 {
		return fmt.Errorf("one connection's commands pass 4 GiB")
	}
	b.s.Bytes += int64(len(c.buf)-start) + 14
	if b.o.MaxBytes > 0 && b.s.Bytes > b.o.MaxBytes {
		return fmt.Errorf("the replay's commands take more than %d MB in memory (--max-memory): replay a shorter trace, or a shard of it", b.o.MaxBytes>>20)
	}
	c.due = append(c.due, due)
	c.ends = append(c.ends, uint32(len(c.buf)))
	c.ops = append(c.ops, uint16(op))
	if reply != trace.ReplyUnknown && c.kinds == nil {
		c.kinds = make([]byte, len(c.ops)-1, cap(c.ops))
	}
	if c.kinds != nil {
		c.kinds = append(c.kinds, reply)
	}
	b.s.Commands++
	b.s.Span = max(b.s.Span, due)
	return nil
}

// note keeps what a preload and the value sizes need of a command: a
// read's key, and its value's size when the capture saw its reply.
func (b *builder) note(info *nameInfo, rec *trace.Record, keys []int) {
	args := rec.Args
	if info.name == "SET" && len(args) >= 3 && len(b.sizes) < 1<<20 {
		b.sizes = append(b.sizes, len(args[2]))
	}
	if !b.track {
		return
	}
	for _, k := range keys {
		key := b.o.KeyPrefix + string(args[k])
		switch {
		case info.spec.Write:
			b.written[key] = true
		case info.fill:
			u, ok := b.read[key]
			if !ok {
				u = Unwritten{Key: key, Command: info.name}
			}
			if u.Size == 0 && rec.Reply == trace.ReplyBulk && len(keys) == 1 {
				u.Size = int(min(rec.ReplyLen, 512<<20))
			}
			b.read[key] = u
		}
	}
}

// finish counts what was dropped, the unwritten keys and the sizes.
func (b *builder) finish() {
	b.s.Dropped = trace.Counts(b.dropped)
	b.s.Mix = trace.Counts(b.sent)
	for k, u := range b.read {
		if !b.written[k] {
			b.s.Unwritten = append(b.s.Unwritten, u)
		}
	}
	sort.Slice(b.s.Unwritten, func(i, j int) bool { return b.s.Unwritten[i].Key < b.s.Unwritten[j].Key })
	if len(b.sizes) > 0 {
		sort.Ints(b.sizes)
		b.s.ValueSize = b.sizes[len(b.sizes)/2]
	}
}

// FillEnd is the last bit a preloaded TairRoaring key holds: one
// container's worth, [0, 65536).
const FillEnd = 65535

// Fills is a schedule (its Mix the fill templates used) that writes each
// key in keys as its reader expects it (internal/commands' fill; each
// __DATA__ value the key's own size when the capture saw it, else size
// bytes), spread over workers connections, every command due at once: run
// open loop, each connection sends its next command when the last one's
// reply came.
func Fills(keys []Unwritten, size, workers int) (*Schedule, error) {
	s := &Schedule{Ops: []string{"fill"}}
	workers = max(min(workers, len(keys)), 1)
	for range workers {
		s.Conns = append(s.Conns, &Conn{})
	}
	values := map[int][]byte{}
	value := func(n int) []byte {
		if v, ok := values[n]; ok {
			return v
		}
		v := make([]byte, n)
		for i := range v {
			v[i] = 'a' + byte(i*7%26)
		}
		values[n] = v
		return v
	}
	b := &builder{s: s}
	used := map[string]int64{}
	for i, k := range keys {
		cmd, ok := commands.Lookup(k.Command)
		if !ok || cmd.Fill == nil {
			return nil, fmt.Errorf("--preload does not know how to fill the keys of %s", k.Command)
		}
		var args [][]byte
		for _, w := range strings.Fields(cmd.Fill.Template) {
			switch w {
			case "{key}":
				args = append(args, []byte(k.Key))
			case "__DATA__":
				args = append(args, value(cmp.Or(k.Size, size)))
			case "{end}":
				args = append(args, strconv.AppendInt(nil, FillEnd, 10))
			default:
				args = append(args, []byte(w))
			}
		}
		if err := b.push(s.Conns[i%workers], 0, 0, args, nil, trace.ReplyUnknown); err != nil {
			return nil, err
		}
		used[cmd.Fill.Template]++
	}
	s.Mix = trace.Counts(used)
	return s, nil
}
