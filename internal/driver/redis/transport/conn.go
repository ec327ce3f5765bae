// Package redis drives RESP servers (Redis, Tair, the embedded server) from
// command templates, on raw connections with pre-encoded requests: one per
// worker for a standalone target, one per worker and node for a cluster
// (slot-aware, following MOVED and ASK).
package transport

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tairbench/tairbench/internal/endpoint"

	"github.com/tairbench/tairbench/pkg/resp"
)

// Conn is a raw RESP connection.
type Conn struct {
	NetConn  net.Conn
	r        *resp.Reader
	wbuf     []byte
	Rep      resp.Reply
	timeout  time.Duration
	Deadline time.Time // current deadline
	feeding  bool      // reading a feed: no deadline (Feed)
	stopCtx  func() bool
	// stopper is the context whose end stopCtx waits for.
	stopper context.Context
	// hub, when set, ends hubTarget's waits at its context's end in place
	// of stopCtx; hubPrev and hubNext link its connections.
	hub              *StopHub
	hubTarget        deadliner
	hubPrev, hubNext *Conn
	// tairAuth is set when the server accepted only Tair's single-argument AUTH.
	tairAuth bool
	// rx counts the bytes read from the connection.
	rx *counting
	// fdNum is the connection's descriptor once fd looked it up (0: not yet).
	fdNum int
	// plain is the last run of plain replies whole found (SkipPlain).
	plain plainRun
	// readAt is a time after the connection had read readAtN bytes
	// (ReadStamped).
	readAt  time.Time
	readAtN int64
}

// plainRun is n plain replies (resp.PlainReplies) of end bytes, found
// when the connection had consumed at bytes of its stream; n is 0 when
// there is none.
type plainRun struct {
	at     int64
	n, end int
}

// counting counts the bytes its connection reads, and says whether its
// last read emptied the socket. On a plain TCP or Unix connection it can
// also make a request's write from inside the runtime poller's read wait
// (Conn.WriteRead): the reply cannot be there before the request is sent,
// so the first read of the reply is not attempted before the poller says
// data came, where net.Conn's Read always tries one that fails with EAGAIN.
type counting struct {
	net.Conn
	raw     syscall.RawConn // nil: TLS, reads through net.Conn only
	drained bool            // the last read returned less than asked
	filled  bool            // a read since the last request filled the buffer
	n       int64
	// pending is a request WriteRead sends from inside the next read.
	pending []byte
	// nowait makes a read return errNotYet rather than wait (Owed).
	nowait bool
	// polled, once EnablePolled set it, makes reads go to the descriptor
	// directly (readFD), so that nowait can be honoured.
	polled bool
	// st, set by EnablePolled with stamps, makes those reads go through
	// recvmsg and note when the data read arrived.
	st *stamper
	// yield, when set (YieldTo), is called when a read reaches yieldAt,
	// the end of the engine's interval, before the request's own
	// deadline; the read then goes on (owner's deadlines are re-armed).
	yield   func(time.Time) time.Time
	yieldAt time.Time
	owner   *Conn
	// The callback's arguments and results, kept here so that the
	// callback (made once) does not allocate.
	p          []byte
	rn         int
	rerr, werr error
	read       func(fd uintptr) bool
}

func newCounting(nc net.Conn) *counting {
	c := &counting{Conn: nc}
	if _, isTLS := nc.(*tls.Conn); !isTLS && rawIO {
		if sc, ok := nc.(syscall.Conn); ok {
			if raw, err := sc.SyscallConn(); err == nil {
				c.raw, c.read = raw, c.readFD
			}
		}
	}
	return c
}

// readFD runs inside RawConn.Read: it first writes the pending request
// (false: wait for the reply), then reads (false on EAGAIN: wait).
func (c *counting) readFD(fd uintptr) bool {
	for len(c.pending) > 0 {
		n, err := rawWrite(fd, c.pending)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return true // the socket is full: Read finishes the write through net.Conn
		case err != nil:
			c.werr = err
			return true
		}
		c.pending = c.pending[n:]
		if len(c.pending) == 0 {
			c.pending = nil
			return false // sent: nothing to read before the poller says so
		}
	}
	for {
		var n int
		var err error
		if c.st != nil {
			n, err = c.st.recv(fd, c.p)
		} else {
			n, err = rawRead(fd, c.p)
		}
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			if c.nowait {
				c.rerr = errNotYet
				return true
			}
			return false
		}
		c.rn, c.rerr = n, err
		return true
	}
}

// result is what a read through the poller callback returns: the poller's
// error, else the callback's (from the system call named call), else the
// bytes read (none is the end of the stream).
func (c *counting) result(p []byte, err error, call string) (int, error) {
	if err == nil {
		if err = c.rerr; err != nil {
			err = os.NewSyscallError(call, err)
		} else if c.rn == 0 {
			err = io.EOF
		}
	}
	if err != nil {
		c.drained = false
		return 0, err
	}
	c.n += int64(c.rn)
	c.drained = c.rn < len(p)
	c.filled = c.filled || c.rn == len(p)
	return c.rn, nil
}

// Read reads from the connection; a wait that reaches the end of the
// engine's interval (yieldAt) yields and goes on.
func (c *counting) Read(p []byte) (int, error) {
	for {
		n, err := c.readOnce(p)
		if err == nil || c.yield == nil || !c.yielded(err) {
			return n, err
		}
	}
}

// yielded says whether err is the read deadline of the interval's end,
// not the request's nor the run's end: it then yields, arms the next
// interval's end, and the read goes on.
func (c *counting) yielded(err error) bool {
	if !errors.Is(err, os.ErrDeadlineExceeded) || c.yieldAt.IsZero() {
		return false
	}
	now, o := time.Now(), c.owner
	if now.Before(c.yieldAt) || !now.Before(o.Deadline) || o.stopped() {
		return false
	}
	c.yieldAt = c.yield(now)
	_ = c.Conn.SetReadDeadline(o.readDeadline())
	return true
}

func (c *counting) readOnce(p []byte) (int, error) {
	if c.pending == nil && !c.polled || len(p) == 0 {
		n, err := c.Conn.Read(p)
		c.n += int64(n)
		c.drained = err == nil && n < len(p)
		c.filled = c.filled || n == len(p)
		return n, err
	}
	c.p, c.rn, c.rerr, c.werr = p, 0, nil, nil
	err := c.raw.Read(c.read)
	c.p = nil
	if c.werr != nil {
		c.pending, c.drained = nil, false
		return 0, os.NewSyscallError("write", c.werr)
	}
	if err == nil && c.pending != nil { // a full socket: the rest of the request the usual way
		if _, err = c.Conn.Write(c.pending); err == nil {
			c.pending = nil
			return c.Read(p)
		}
	}
	if err != nil && c.pending != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		// The wait ended before the callback ran (the interval's end, or
		// the deadline, had passed): the request is still to be sent. A
		// yield goes on and sends it; WriteRead drops it otherwise.
		c.drained = false
		return 0, err
	}
	c.pending = nil
	if err == nil && c.rerr == errNotYet {
		c.drained = false
		return 0, errNotYet
	}
	return c.result(p, err, "read")
}

// YieldTo makes the connection's waits for replies call yield at the end
// of each of the engine's intervals (engine.Yielder) and go on.
func (c *Conn) YieldTo(yield func(time.Time) time.Time) {
	c.rx.yield, c.rx.yieldAt = yield, yield(time.Now())
	if !c.Deadline.IsZero() {
		_ = c.NetConn.SetReadDeadline(c.readDeadline())
	}
}

// readDeadline is when a read stops: the request's deadline, or the end
// of the engine's interval when that comes first (YieldTo).
func (c *Conn) readDeadline() time.Time {
	if c.rx.yield != nil && c.rx.yieldAt.Before(c.Deadline) {
		return c.rx.yieldAt
	}
	return c.Deadline
}

// stopped says whether the run's end ended the connection's waits.
func (c *Conn) stopped() bool {
	return c.hub != nil && c.hub.ctx.Err() != nil || c.stopper != nil && c.stopper.Err() != nil
}

// errNotYet is a read that found nothing, made not to wait (Owed).
var errNotYet = errors.New("read: nothing has come yet")

// BytesRead returns the bytes read from the connection so far.
func (c *Conn) BytesRead() int64 { return c.rx.n }

// Consumed is the bytes of the replies read so far: those read from the
// connection less those still in the buffer. Its change across a Read is
// that one reply's size, however many came in the same read.
func (c *Conn) Consumed() int64 { return c.rx.n - int64(c.r.Buffered()) }

// ReplyError is an error reply from the server during the handshake.
type ReplyError struct{ Msg string }

// Error returns the server's message.
func (e *ReplyError) Error() string { return e.Msg }

// tlsHandshakeWait bounds a TLS handshake: a TLS server answers the
// client's hello at once.
const tlsHandshakeWait = 3 * time.Second

// IsAuthError says whether err is the server refusing the login (NOAUTH,
// WRONGPASS, a wrong password): retrying cannot help.
func IsAuthError(err error) bool {
	var re *ReplyError
	if !errors.As(err, &re) {
		return false
	}
	m := strings.ToUpper(re.Msg)
	return strings.HasPrefix(m, "NOAUTH") || strings.HasPrefix(m, "WRONGPASS") || strings.Contains(m, "INVALID PASSWORD") ||
		strings.Contains(m, "INVALID USERNAME-PASSWORD")
}

// ForeignError is a server that does not speak RESP: an HTTP server on
// the port, for example.
type ForeignError struct{ *resp.NotRESPError }

func (e *ForeignError) Error() string {
	if e.HTTP() {
		return fmt.Sprintf("this is an HTTP server, not Redis (it answered %q)", e.Start)
	}
	return fmt.Sprintf("this server does not speak RESP (it answered %q)", e.Start)
}

// Unwrap gives the protocol's error.
func (e *ForeignError) Unwrap() error { return e.NotRESPError }

// IsForeign says whether err is a server that does not speak RESP.
func IsForeign(err error) bool {
	var nr *resp.NotRESPError
	return errors.As(err, &nr)
}

// Dial connects, upgrades to TLS if asked, and logs in. When ctx ends, any
// blocked read or write returns at once.
func Dial(ctx context.Context, t endpoint.Target) (*Conn, error) { return dial(ctx, t, nil) }

// dial is Dial; when hub is for ctx, the connection joins it rather than
// hooking ctx's end by itself.
func dial(ctx context.Context, t endpoint.Target, hub *StopHub) (*Conn, error) {
	if len(t.Sentinels) > 0 {
		if t.MasterName == "" {
			return nil, errNoSentinelTarget
		}
		addr, err := ResolveMaster(ctx, t)
		if err != nil {
			return nil, err
		}
		t.Addr = addr
	}
	timeout := t.RequestTimeout()
	network, address := t.Network()
	nc, err := net.Conn(nil), errNoRawDial
	if t.TLS == nil {
		nc, err = dialRaw(ctx, network, address, timeout)
	}
	if err == errNoRawDial {
		d := net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
		nc, err = d.DialContext(ctx, network, address)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %w", t.Addr, unwrapNet(err))
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if t.TLS != nil {
		cfg, err := t.TLS.Config(t.Addr)
		if err != nil {
			nc.Close()
			return nil, err
		}
		tc := tls.Client(nc, cfg)
		// A server that answers within a second but not the handshake in
		// three is not speaking TLS: a plaintext Redis waits for a line.
		hs := min(timeout, tlsHandshakeWait)
		hctx, cancel := context.WithTimeout(ctx, hs)
		err = tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			nc.Close()
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				return nil, fmt.Errorf("TLS handshake with %s: no answer in %s: the server may not speak TLS on this port (leave TLS out for a plaintext server)", t.Addr, hs)
			}
			return nil, fmt.Errorf("TLS handshake with %s failed: %w", t.Addr, err)
		}
		nc = tc
	}
	rx := newCounting(nc)
	c := &Conn{NetConn: nc, rx: rx, r: resp.NewReader(bufio.NewReaderSize(rx, minReadBuffer), resp.Limits{MaxBulk: 512 << 20}), timeout: timeout}
	rx.owner = c
	c.stopOn(ctx, hub, nc)
	if err := c.handshake(t); err != nil {
		c.Close()
		return nil, err
	}
	loggedIn(nc)
	return c, nil
}

// errNoRawDial says that dialRaw cannot make this connection (not TCP, an
// IPv6 zone, not Linux): Dial then connects through net.Dialer.
var errNoRawDial = errors.New("not a plain TCP address")

func unwrapNet(err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// Do sends one command and returns its reply summary (for the handshake and
// tools; not for the hot path).
func (c *Conn) Do(args ...string) (resp.Reply, error) {
	c.wbuf = resp.AppendCommand(c.wbuf[:0], args...)
	if err := c.Write(c.wbuf); err != nil {
		return resp.Reply{}, err
	}
	if err := c.Read(&c.Rep); err != nil {
		return resp.Reply{}, err
	}
	return c.Rep, nil
}

func (c *Conn) handshake(t endpoint.Target) error {
	l := t.Login()
	login := func(creds ...string) error {
		var args []string
		switch {
		case t.Protocol == 3 && len(creds) == 2:
			args = []string{"HELLO", "3", "AUTH", creds[0], creds[1]}
		case t.Protocol == 3 && len(creds) == 1:
			args = []string{"HELLO", "3", "AUTH", "default", creds[0]}
		case t.Protocol == 3:
			args = []string{"HELLO", "3"}
		case len(creds) > 0:
			args = append([]string{"AUTH"}, creds...)
		default:
			return nil
		}
		rep, err := c.Do(args...)
		if err != nil {
			return fmt.Errorf("handshake with %s: %w", t.Addr, err)
		}
		if rep.IsError() {
			return &ReplyError{Msg: string(rep.Err)}
		}
		return nil
	}
	err := login(l.Args()...)
	var re *ReplyError
	if err != nil && errors.As(err, &re) && l.Fallback != "" {
		if login(l.Fallback) == nil {
			err, c.tairAuth = nil, true
		}
	}
	if err != nil {
		if errors.As(err, &re) {
			return fmt.Errorf("authentication to %s failed: %w", t.Addr, re)
		}
		return err
	}
	if t.DB != 0 {
		rep, err := c.Do("SELECT", strconv.Itoa(t.DB))
		if err != nil {
			return fmt.Errorf("select db %d: %w", t.DB, err)
		}
		if rep.IsError() {
			return fmt.Errorf("select db %d on %s: %s", t.DB, t.Addr, rep.Err)
		}
	}
	if t.Name != "" {
		if _, err := c.Do("CLIENT", "SETNAME", t.Name); err != nil {
			return err
		}
	}
	return nil
}

// refreshDeadline keeps the connection's deadline between the timeout and
// the timeout and a slack ahead, so that a request sent now fails no
// sooner than the timeout and at most the slack later, without calling
// SetDeadline on every request (once a slack at most).
func (c *Conn) refreshDeadline() {
	if time.Until(c.Deadline) < c.timeout { // one read of the monotonic clock
		c.Deadline = time.Now().Add(c.timeout + deadlineSlack(c.timeout))
		if c.rx.yield == nil {
			_ = c.NetConn.SetDeadline(c.Deadline)
			return
		}
		_ = c.NetConn.SetWriteDeadline(c.Deadline)
		_ = c.NetConn.SetReadDeadline(c.readDeadline())
	}
}

// deadlineSlack is how late past the timeout a request may fail: a tenth
// of it, at most 100 ms (the deadline moves once a slack at most).
func deadlineSlack(timeout time.Duration) time.Duration {
	return min(timeout/10, 100*time.Millisecond)
}

// A connection's read buffer starts small, so that 10,000 connections cost
// little (most replies are a few bytes), and doubles up to MaxReadBuffer
// while reads fill it: replies come in bigger bursts than it holds
// (pipelines, big values), and a bigger buffer saves read calls. A reply
// that does not fit is still read whole, through the buffer.
const (
	minReadBuffer = 256
	MaxReadBuffer = 16 << 10
)

// growReader doubles the read buffer when a read since the last request
// filled it.
func (c *Conn) growReader() {
	if c.rx.filled {
		c.grow()
		c.rx.filled = false
	}
}

// grow doubles the read buffer, up to MaxReadBuffer, keeping what it
// holds; false when it is at MaxReadBuffer.
func (c *Conn) grow() bool { return c.r.Grow(min(2*c.r.BufferSize(), MaxReadBuffer), c.rx) }

// Write writes b in full.
func (c *Conn) Write(b []byte) error {
	c.growReader()
	c.refreshDeadline()
	if _, err := c.NetConn.Write(b); err != nil {
		return fmt.Errorf("write: %w", c.describe(err))
	}
	return nil
}

// WriteRead writes a request and reads its first reply. When the
// connection has nothing in flight (every earlier reply read, the socket
// emptied by the last read), the write is made from inside the read's wait
// on the poller, which saves the read attempt that would find nothing; the
// caller must have read every reply it was owed. Otherwise it is Write and
// Read.
func (c *Conn) WriteRead(b []byte, rep *resp.Reply) error {
	if c.rx.raw == nil || !c.rx.drained || c.r.Buffered() != 0 || len(b) == 0 {
		if err := c.Write(b); err != nil {
			return err
		}
		return c.Read(rep)
	}
	c.growReader() // as Write does
	c.refreshDeadline()
	c.rx.pending = b
	err := c.Read(rep)
	if c.rx.pending != nil { // the reply reader never read (it cannot, with nothing buffered)
		c.rx.pending = nil
		if err == nil {
			err = errors.New("write: request not sent")
		}
	}
	return err
}

// EnablePolled makes the connection's reads go to its descriptor directly,
// so that Owed can read without waiting; with stamps it also notes when the
// data it reads arrived (the kernel's receive timestamp; Arrived), which
// costs the kernel a timestamp on every packet and a control message on
// every read. False where it cannot (TLS, not Linux, the option refused).
// Stamps, once on, stay on.
func (c *Conn) EnablePolled(stamps bool) bool {
	if !RxStamps || c.rx.raw == nil {
		return false
	}
	if stamps && c.rx.st == nil {
		var err error
		if cerr := c.rx.raw.Control(func(fd uintptr) { err = enableStamps(fd) }); cerr != nil || err != nil {
			return false
		}
		c.rx.st = &stamper{}
	}
	c.rx.polled = true
	return true
}

// Owed says, without waiting, whether the next n replies have all come:
// it reads once what has come (into the reply buffer's free space) unless
// they are buffered already. True also when they cannot be told whole in
// the buffer (one larger than it; malformed) or when the connection
// cannot read without waiting (TLS, not polled), or a read failed: the
// replies' reads then wait, or report the error.
func (c *Conn) Owed(n int) bool {
	if c.rx.raw == nil || !c.rx.polled || c.r.Buffered() > 0 && c.whole(n) {
		return true
	}
	c.rx.nowait = true
	err := c.r.Fill()
	c.rx.nowait = false
	if err != nil {
		return err != errNotYet
	}
	return c.whole(n)
}

// GrowFull doubles a full read buffer below MaxReadBuffer, keeping what it
// holds, so that Owed can tell a reply larger than it whole; false when
// the buffer is not full or already at MaxReadBuffer.
func (c *Conn) GrowFull() bool { return c.r.Full() && c.grow() }

// Spills says that the next n replies cannot be told whole in the read
// buffer: it is full and they are not all in it (one is larger than it).
func (c *Conn) Spills(n int) bool { return c.r.Full() && !resp.Complete(c.r.Peeked(), n) }

// whole says whether the buffer holds the next n replies whole, or is full
// (they cannot be told whole in it), in one scan of the bytes; when they
// are all plain it notes where they end, for SkipPlain.
func (c *Conn) whole(n int) bool {
	switch end, st := c.r.PlainReplies(n); st {
	case resp.Plain:
		c.plain = plainRun{at: c.Consumed(), n: n, end: end}
		return true
	case resp.Short:
		return c.r.Full()
	}
	return true // whole, or malformed (the read reports it)
}

// FoundPlain says Owed found a run of plain replies whole, which
// SkipPlain may count without reading them.
func (c *Conn) FoundPlain() bool { return c.plain.n > 0 }

// SkipPlain consumes the next n replies when Owed found them whole and
// plain (resp.PlainReplies: none an error, a null or an aggregate) and
// nothing of them was read since, so that a caller counts them without
// reading each; false, consuming nothing, otherwise.
func (c *Conn) SkipPlain(n int) bool {
	p := c.plain
	c.plain = plainRun{}
	if p.n != n || n == 0 || p.at != c.Consumed() {
		return false
	}
	c.r.Skip(p.end)
	return true
}

// Arrived is when the data of the connection's last read arrived, by the
// kernel's clock; zero without stamps (EnablePolled) or when the kernel
// gave none.
func (c *Conn) Arrived() time.Time {
	if c.rx.st == nil {
		return time.Time{}
	}
	return c.rx.st.arrived()
}

// ForgetArrival clears Arrived until the next read.
func (c *Conn) ForgetArrival() {
	if c.rx.st != nil {
		c.rx.st.forget()
	}
}

// WaitUntil waits for data until `until`, reading what comes into the
// reply buffer: false (and nil) when nothing came by then, an error when
// the last request's timeout passed first. With something
// buffered it returns at once (Read waits for the rest of a reply that
// came in part). ctx is the run's: once it ended the wait is an error, so
// that restoring the connection's deadline cannot outlast the run.
func (c *Conn) WaitUntil(ctx context.Context, until time.Time) (bool, error) {
	if c.r.Buffered() > 0 {
		return true, nil
	}
	if c.Deadline.IsZero() {
		c.refreshDeadline()
	} // else the last request's: waiting does not move it
	short := until.Before(c.Deadline)
	if short {
		_ = c.NetConn.SetReadDeadline(until)
	}
	err := c.r.Fill()
	if short {
		_ = c.NetConn.SetReadDeadline(c.readDeadline())
	}
	switch {
	case ctx.Err() != nil:
		return false, fmt.Errorf("read: %w", ctx.Err())
	case short && errors.Is(err, os.ErrDeadlineExceeded):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read: %w", c.describe(err))
	}
	return true, nil
}

// FD returns the connection's descriptor, looked up once; false over TLS
// or where connections do not use the poller callbacks (Windows).
func (c *Conn) FD() (int, bool) {
	if c.fdNum > 0 {
		return c.fdNum, true
	}
	if c.rx.raw == nil {
		return -1, false
	}
	fd := -1
	if err := c.rx.raw.Control(func(f uintptr) { fd = int(f) }); err != nil || fd <= 0 {
		return -1, false
	}
	c.fdNum = fd
	return fd, true
}

// Read reads one reply summary.
func (c *Conn) Read(rep *resp.Reply) error {
	if err := c.r.ReadReply(rep); err != nil {
		return fmt.Errorf("read: %w", c.describe(err))
	}
	return nil
}

// ReadStamped reads one reply summary, as Read, and says when the reply
// was whole in the client: no earlier than when the last read that took
// bytes from the connection returned. A reply already in the buffer came
// with an earlier read, and is dated by it without a clock reading of
// its own, unless bytes came in since that date (through any read).
func (c *Conn) ReadStamped(rep *resp.Reply) (time.Time, error) {
	err := c.Read(rep)
	if c.rx.n != c.readAtN {
		c.readAt, c.readAtN = time.Now(), c.rx.n
	}
	return c.readAt, err
}

// TimeoutError is a request whose reply did not come within the
// connection's timeout.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return fmt.Sprintf("timeout: no reply in %s", e.After) }

// Timeout marks the error as a timeout (net.Error's sense).
func (e *TimeoutError) Timeout() bool { return true }

// describe is err as a request's failure on c reads: a timeout names
// the connection's, a non-RESP answer the server it came from.
func (c *Conn) describe(err error) error {
	var nr *resp.NotRESPError
	if errors.As(err, &nr) {
		return &ForeignError{nr}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{After: c.timeout}
	}
	if errors.Is(err, syscall.ECONNRESET) {
		return errors.New("connection reset by peer")
	}
	if errors.Is(err, syscall.EPIPE) {
		return errors.New("broken pipe")
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return errors.New("connection closed by server")
	}
	return unwrapNet(err)
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.unhook()
	return c.NetConn.Close()
}

// stopOn makes ctx's end end d's waits, d being the connection's net.Conn:
// through hub when it is for ctx, else through a hook of its own.
func (c *Conn) stopOn(ctx context.Context, hub *StopHub, d deadliner) {
	if hub != nil && hub.ctx == ctx {
		if c.hub == hub {
			hub.retarget(c, d)
			return
		}
		c.unhook()
		hub.add(c, d)
		return
	}
	c.unhook()
	c.stopCtx, c.stopper = context.AfterFunc(ctx, func() { _ = d.SetDeadline(pastDeadline) }), ctx
}

// stopsOn says whether ctx's end already ends the connection's waits.
func (c *Conn) stopsOn(ctx context.Context) bool {
	return c.hub != nil && c.hub.ctx == ctx || c.stopCtx != nil && c.stopper == ctx
}

// unhook stops ctx's end from acting on the connection.
func (c *Conn) unhook() {
	if c.hub != nil {
		c.hub.remove(c)
	}
	if c.stopCtx != nil {
		c.stopCtx()
		c.stopCtx, c.stopper = nil, nil
	}
}

// ResolveLogin connects once and returns t set to the login form the
// server accepts (endpoint.AuthForm), for clients that cannot fall back by
// themselves (go-redis). A target whose form is known is returned as it is.
func ResolveLogin(ctx context.Context, t endpoint.Target) (endpoint.Target, error) {
	if t.Login().Fallback == "" {
		return t, nil
	}
	c, err := Dial(ctx, t)
	if err != nil {
		return t, err
	}
	t.AuthForm = endpoint.AuthACL
	if c.tairAuth {
		t.AuthForm = endpoint.AuthTair
	}
	return t, c.Close()
}

// DoString sends one command and returns its string reply; an error reply
// becomes a *ReplyError and a nil reply an empty string.
func (c *Conn) DoString(args ...string) (string, error) {
	c.wbuf = resp.AppendCommand(c.wbuf[:0], args...)
	if err := c.Write(c.wbuf); err != nil {
		return "", err
	}
	s, isErr, _, err := c.r.ReadText()
	if err != nil {
		return "", fmt.Errorf("read: %w", c.describe(err))
	}
	if isErr {
		return "", &ReplyError{Msg: s}
	}
	return s, nil
}

// DoStrings sends one command whose reply is an array of strings (CONFIG
// GET's) and returns them (for tools; not for the hot path).
func (c *Conn) DoStrings(args ...string) ([]string, error) {
	c.wbuf = resp.AppendCommand(c.wbuf[:0], args...)
	if err := c.Write(c.wbuf); err != nil {
		return nil, err
	}
	var rep resp.Reply
	raw, err := c.r.ReadStrings(nil, &rep)
	switch {
	case err != nil:
		return nil, fmt.Errorf("read: %w", c.describe(err))
	case rep.IsError():
		return nil, &ReplyError{Msg: string(rep.Err)}
	}
	out := make([]string, len(raw))
	for i, b := range raw {
		out[i] = string(b)
	}
	return out, nil
}

// Feed reads the next line of a feed the server pushes (MONITOR's): a
// status reply's text. A feed's reads have no deadline: the end of the
// context the connection was dialled with ends them.
func (c *Conn) Feed() (string, error) {
	if !c.feeding {
		c.feeding = true
		if c.stopped() {
			return "", fmt.Errorf("read: %w", context.Canceled)
		}
		c.Deadline = time.Time{}
		_ = c.NetConn.SetReadDeadline(time.Time{})
		if c.stopped() { // the context ended while the deadline was cleared
			_ = c.NetConn.SetReadDeadline(pastDeadline)
		}
	}
	s, isErr, _, err := c.r.ReadText()
	switch {
	case err != nil:
		return "", fmt.Errorf("read: %w", c.describe(err))
	case isErr:
		return "", &ReplyError{Msg: s}
	}
	return s, nil
}

// ReadStrings reads an array of bulk strings into args (valid until the
// next read); an error reply is a *ReplyError, another reply type an error.
func (c *Conn) ReadStrings(args [][]byte) ([][]byte, error) {
	c.Rep = resp.Reply{}
	out, err := c.r.ReadStrings(args, &c.Rep)
	if err != nil {
		return nil, fmt.Errorf("read: %w", c.describe(err))
	}
	if c.Rep.Type == 0 {
		return out, nil
	}
	if c.Rep.IsError() {
		return nil, &ReplyError{Msg: string(c.Rep.Err)}
	}
	return nil, fmt.Errorf("read: want an array of strings, got a reply of type %q", c.Rep.Type)
}

// Buffered is the number of reply bytes read from the connection and not
// yet parsed.
func (c *Conn) Buffered() int { return c.r.Buffered() }
