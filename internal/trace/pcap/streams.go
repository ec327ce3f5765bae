package pcap

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/tcpassembly"

	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/pkg/resp"
)

// converter turns the reassembled streams into records. It is the
// assembler's stream factory.
type converter struct {
	port  uint16
	emit  func(*trace.Record) error
	conns map[string]*conn
	queue []*pending // every connection's commands, in the order they came
	stats Stats
	start time.Time
}

// conn is one client connection: its number, database, the bytes of
// each direction not yet parsed, and its commands awaiting replies.
type conn struct {
	id       uint32
	db       uint32
	cmd, rep []byte
	waiting  []*pending
	feed     bool // MONITOR or SUBSCRIBE: replies are no longer answers
	broken   bool
}

// pending is a command, and whether its reply came.
type pending struct {
	rec  trace.Record
	sent time.Time
	done bool
}

func newConverter(port uint16, emit func(*trace.Record) error) *converter {
	return &converter{port: port, emit: emit, conns: map[string]*conn{}}
}

// New implements tcpassembly.StreamFactory: one direction of a connection.
func (c *converter) New(net, tcp gopacket.Flow) tcpassembly.Stream {
	toServer := tcp.Dst().String() == strconv.Itoa(int(c.port))
	client := net.Src().String() + ":" + tcp.Src().String()
	if !toServer {
		client = net.Dst().String() + ":" + tcp.Dst().String()
	}
	k := c.conns[client]
	if k == nil {
		k = &conn{id: uint32(len(c.conns))}
		c.conns[client] = k
		c.stats.Connections = len(c.conns)
	}
	return &stream{c: c, k: k, toServer: toServer}
}

// stream is one direction of a connection.
type stream struct {
	c        *converter
	k        *conn
	toServer bool
}

// Reassembled implements tcpassembly.Stream.
func (s *stream) Reassembled(rs []tcpassembly.Reassembly) {
	for _, r := range rs {
		if r.Skip != 0 && (len(s.k.cmd) > 0 || len(s.k.rep) > 0 || r.Skip > 0) {
			s.c.stats.Gaps++
			s.k.cmd, s.k.rep = s.k.cmd[:0], s.k.rep[:0] // what was cut cannot be parsed
			s.k.waiting = nil
		}
		if s.toServer {
			s.k.cmd = append(s.k.cmd, r.Bytes...)
			s.c.commands(s.k, r.Seen)
		} else {
			s.k.rep = append(s.k.rep, r.Bytes...)
			s.c.replies(s.k, r.Seen)
		}
	}
}

// ReassemblyComplete implements tcpassembly.Stream.
func (s *stream) ReassemblyComplete() {}

// commands parses the connection's whole commands.
func (c *converter) commands(k *conn, seen time.Time) {
	for !k.broken && len(k.cmd) > 0 {
		args, n, bad := parseRequest(k.cmd)
		if bad {
			k.broken = true
			c.stats.Bad++
			return
		}
		if n == 0 {
			return
		}
		k.cmd = k.cmd[n:]
		if len(args) == 0 {
			continue
		}
		if c.start.IsZero() {
			c.start, c.stats.First = seen, seen
		}
		p := &pending{rec: trace.Record{At: seen.Sub(c.start), Conn: k.id, DB: k.db, Args: args}, sent: seen}
		c.stats.Commands++
		c.stats.Span = max(c.stats.Span, p.rec.At)
		c.queue = append(c.queue, p)
		switch name := strings.ToUpper(string(args[0])); {
		case name == "SELECT" && len(args) == 2:
			if db, err := strconv.ParseUint(string(args[1]), 10, 32); err == nil {
				k.db = uint32(db)
			}
		case name == "MONITOR" || strings.HasSuffix(name, "SUBSCRIBE"):
			k.feed = true
			p.done = true // its replies are a feed, not an answer
			continue
		}
		if k.feed {
			p.done = true
			continue
		}
		k.waiting = append(k.waiting, p)
	}
}

// replies matches the connection's whole replies to its commands.
func (c *converter) replies(k *conn, seen time.Time) {
	for len(k.rep) > 0 {
		n, ok, bad := resp.Span(k.rep)
		if bad {
			k.rep = k.rep[:0]
			c.stats.Bad++
			return
		}
		if !ok {
			return
		}
		kind, null := k.rep[0], (k.rep[0] == '$' || k.rep[0] == '*') && k.rep[1] == '-'
		var length int64
		if (kind == '$' || kind == '*') && !null {
			nl := bytes.IndexByte(k.rep, '\r')
			length, _ = resp.ParseInt(k.rep[1:max(nl, 1)])
		}
		k.rep = k.rep[n:]
		if k.feed && len(k.waiting) == 0 {
			c.stats.Feed++
			continue
		}
		if kind == '>' || len(k.waiting) == 0 { // a push, or a reply to a command the capture missed
			c.stats.Unmatched++
			continue
		}
		p := k.waiting[0]
		k.waiting = k.waiting[1:]
		p.rec.Reply, p.rec.ReplyAfter, p.rec.ReplyLen, p.done = trace.KindOf(kind, null), seen.Sub(p.sent), length, true
		c.stats.Replies++
	}
}

// flush hands on, in order, the commands whose replies came, and those
// waiting more than holdBack before now (all of them when end).
func (c *converter) flush(now time.Time, end bool) error {
	i := 0
	for ; i < len(c.queue); i++ {
		p := c.queue[i]
		if !p.done && !end && now.Sub(p.sent) < holdBack {
			break
		}
		if err := c.emit(&p.rec); err != nil {
			return err
		}
	}
	if i > 0 {
		c.queue = append(c.queue[:0], c.queue[i:]...)
	}
	return nil
}

// parseRequest parses one command at the start of b: a RESP array of bulk
// strings, or an inline line. n is 0 while b holds only part of it; bad
// when b is not a command.
func parseRequest(b []byte) (args [][]byte, n int, bad bool) {
	nl := bytes.IndexByte(b, '\n')
	if nl < 0 {
		return nil, 0, len(b) > 64<<10
	}
	if b[0] != '*' { // inline
		for _, f := range bytes.Fields(b[:nl]) {
			args = append(args, bytes.Clone(f))
		}
		return args, nl + 1, false
	}
	count, ok := resp.ParseInt(bytes.TrimSuffix(b[1:nl], []byte("\r")))
	if !ok || count < 0 || count > 1<<20 {
		return nil, 0, true
	}
	at := nl + 1
	for range count {
		rest := b[at:]
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, 0, false
		}
		if rest[0] != '$' {
			return nil, 0, true
		}
		l, ok := resp.ParseInt(bytes.TrimSuffix(rest[1:nl], []byte("\r")))
		if !ok || l < 0 || l > 512<<20 {
			return nil, 0, true
		}
		if len(rest) < nl+1+int(l)+2 {
			return nil, 0, false
		}
		args = append(args, bytes.Clone(rest[nl+1:nl+1+int(l)]))
		at += nl + 1 + int(l) + 2
	}
	return args, at, false
}
