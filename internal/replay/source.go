package replay

import (
	"sort"
	"time"

	"github.com/tairbench/tairbench/internal/trace"
)

// never is the intended start of a request past a connection's last.
const never = time.Duration(1<<63 - 1)

// Source returns worker id's commands, from the first: the Redis
// driver's Source (a fresh cursor each call, so that each run of a
// capacity search starts the trace again).
func (s *Schedule) Source(id int) *Cursor { return &Cursor{c: s.Conns[id]} }

// Pacer returns worker id's schedule at speed (the captured gaps divided
// by it), cut at end (0: not cut): the engine's Pacer.
func (s *Schedule) Pacer(id int, speed float64, end time.Duration) Pacer {
	return Pacer{c: s.Conns[id], speed: speed, end: end}
}

// Cursor hands out one connection's commands in order, and checks each
// reply's kind against the capture's when it knows it.
type Cursor struct {
	c      *Conn
	next   int
	expect byte // the last command's reply kind (trace.ReplyUnknown: none)
	// Kinds counts the replies checked: [expected][got].
	Kinds [kinds][kinds]int64
}

// kinds is how many reply kinds a trace names.
const kinds = trace.ReplyArray + 1

// Expects implements the driver's ReplyChecker.
func (k *Cursor) Expects() bool { return k.expect != trace.ReplyUnknown }

// Reply implements the driver's ReplyChecker: the reply's kind beside
// the capture's.
func (k *Cursor) Reply(typ byte, null bool) {
	if k.expect != trace.ReplyUnknown {
		k.Kinds[k.expect][trace.KindOf(typ, null)]++
	}
}

// AppendNext appends the next command to b, with its operation type.
// Past the last (which the pacer does not let happen) it appends nothing.
func (k *Cursor) AppendNext(b []byte) ([]byte, int) {
	i := k.next
	if i >= len(k.c.ends) {
		return b, 0
	}
	k.next++
	k.expect = trace.ReplyUnknown
	if k.c.kinds != nil {
		k.expect = k.c.kinds[i]
	}
	start := uint32(0)
	if i > 0 {
		start = k.c.ends[i-1]
	}
	return append(b, k.c.buf[start:k.c.ends[i]]...), int(k.c.ops[i])
}

// Pacer is one connection's open-loop schedule: each command at its
// captured time divided by the speed. It reads no clock.
type Pacer struct {
	c     *Conn
	speed float64
	end   time.Duration
}

// Pace implements the engine's Pacer.
func (p Pacer) Pace(elapsed time.Duration, sent uint64) (time.Duration, bool) {
	due := p.Due(sent)
	if due == never || p.end > 0 && due >= p.end {
		return 0, true
	}
	return max(due-elapsed, 0), false
}

// Due implements the engine's Pacer.
func (p Pacer) Due(n uint64) time.Duration {
	if n >= uint64(len(p.c.due)) {
		return never
	}
	return time.Duration(float64(p.c.due[n]) / p.speed)
}

// DueBefore is how many commands are due before t.
func (p Pacer) DueBefore(t time.Duration) uint64 {
	return uint64(sort.Search(len(p.c.due), func(i int) bool { return p.Due(uint64(i)) >= t }))
}
