// Package ledger is a run's write ledger (--verify-writes): every write
// is an INCR of a counter the client owns, optionally followed by WAIT
// for replicas, so that after the run each counter's value says how many
// of its writes the server kept. Against what each connection sent and
// saw acknowledged, that counts acknowledged writes lost, unacknowledged
// writes applied, and writes applied twice (as Alibaba's TairPulse counts
// INCRs per key, and antirez's consistency test lost writes).
package ledger

import (
	"fmt"
	"strconv"

	"github.com/tairbench/tairbench/pkg/resp"
	"github.com/tairbench/tairbench/pkg/result"
)

// Ledger is one run's ledger: each connection's Book.
type Ledger struct {
	// Prefix starts every counter's key; Keys is how many counters each
	// connection writes in turn.
	Prefix string
	Keys   int
	// Wait, above 0, follows each INCR with WAIT Wait WaitMS: a write is
	// acknowledged only when that many replicas have it.
	Wait   int
	WaitMS int
	books  []*Book
}

// New returns the ledger of a run of workers connections.
func New(prefix string, workers, keys, wait, waitMS int) *Ledger {
	l := &Ledger{Prefix: prefix, Keys: max(keys, 1), Wait: wait, WaitMS: waitMS}
	for i := 0; i < workers; i++ {
		l.books = append(l.books, l.newBook(i))
	}
	return l
}

// CommandsPerRequest is how many commands a write sends (INCR, and WAIT).
func (l *Ledger) CommandsPerRequest() int {
	if l.Wait > 0 {
		return 2
	}
	return 1
}

// Key is counter j of connection i.
func (l *Ledger) Key(i, j int) string { return fmt.Sprintf("%s%d:%d", l.Prefix, i, j) }

// AllKeys are every counter's key, connection by connection.
func (l *Ledger) AllKeys() []string {
	var out []string
	for i := range l.books {
		for j := 0; j < l.Keys; j++ {
			out = append(out, l.Key(i, j))
		}
	}
	return out
}

// Book is one connection's part of the ledger: a driver Source (its
// writes) that also reads their replies (Value). It is used by its
// connection's worker alone.
type Book struct {
	l        *Ledger
	cmds     [][]byte // each counter's request, RESP-encoded
	next     int
	pending  int // the counter of the request sent and not yet settled (-1: none)
	incr     int64
	incrOK   bool
	counters []counter
}

// counter is what a connection knows of one counter.
type counter struct {
	sent, acked, unacked, refused, maxAcked int64
}

func (l *Ledger) newBook(i int) *Book {
	b := &Book{l: l, pending: -1, counters: make([]counter, l.Keys)}
	for j := 0; j < l.Keys; j++ {
		cmd := resp.AppendCommand(nil, "INCR", l.Key(i, j))
		if l.Wait > 0 {
			cmd = resp.AppendCommand(cmd, "WAIT", strconv.Itoa(l.Wait), strconv.Itoa(l.WaitMS))
		}
		b.cmds = append(b.cmds, cmd)
	}
	return b
}

// Book is connection i's book.
func (l *Ledger) Book(i int) *Book { return l.books[i] }

// AppendNext appends the connection's next write: the next counter's
// INCR (and WAIT). A write still pending had no reply: unacknowledged.
func (b *Book) AppendNext(buf []byte) ([]byte, int) {
	b.settle()
	j := b.next
	b.next = (b.next + 1) % len(b.cmds)
	b.pending, b.incrOK = j, false
	b.counters[j].sent++
	return append(buf, b.cmds[j]...), 0
}

// Value takes reply i of the pending write: INCR's (0), WAIT's (1).
func (b *Book) Value(i int, rep *resp.Reply) {
	if b.pending < 0 {
		return
	}
	c := &b.counters[b.pending]
	switch {
	case i == 0 && rep.IsError():
		// Refused (READONLY, a full memory): not applied.
		c.refused++
		b.pending = -1
		return
	case i == 0:
		b.incr, b.incrOK = rep.Int, rep.Type == ':'
		if b.l.Wait > 0 {
			return
		}
	case i == 1 && (rep.IsError() || rep.Type != ':' || rep.Int < int64(b.l.Wait)):
		// Applied, maybe: not replicated in time, not acknowledged.
		c.unacked++
		b.pending = -1
		return
	}
	if b.incrOK {
		c.acked++
		c.maxAcked = max(c.maxAcked, b.incr)
	} else {
		c.unacked++
	}
	b.pending = -1
}

// settle counts a pending write whose replies never came.
func (b *Book) settle() {
	if b.pending >= 0 {
		b.counters[b.pending].unacked++
		b.pending = -1
	}
}

// Verdict compares what the connections saw with the counters' values
// read back (values[k] for AllKeys()[k]; a missing key reads 0).
func (l *Ledger) Verdict(values []int64) *result.Ledger {
	v := &result.Ledger{Schema: result.SchemaLedger, Keys: len(l.books) * l.Keys, WaitReplicas: l.Wait}
	k := 0
	for _, b := range l.books {
		b.settle()
		for _, c := range b.counters {
			val := int64(0)
			if k < len(values) {
				val = values[k]
			}
			k++
			v.Sent += c.sent
			v.Acknowledged += c.acked
			v.Unacknowledged += c.unacked
			v.Refused += c.refused
			// The counter reached maxAcked when the server said so: a
			// value below it lost that many acknowledged writes.
			lost := max(0, c.maxAcked-val)
			v.LostAcknowledged += lost
			kept := val - (c.acked - lost) // beyond the acknowledged it kept
			v.UnacknowledgedApplied += min(max(0, kept), c.unacked)
			v.AppliedTwice += max(0, val-(c.acked+c.unacked))
		}
	}
	return v
}
