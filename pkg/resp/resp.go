// Package resp reads and writes the Redis serialization protocol (RESP2 and
// the RESP3 reply types) without allocating on the common path. The client
// side summarizes replies (ReadReply); the server side reads commands
// (ReadCommand) and appends replies (Append*).
package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrProtocol marks malformed input; the connection should be closed.
var ErrProtocol = errors.New("protocol error")

func protoErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrProtocol, fmt.Sprintf(format, a...))
}

// NotRESPError is input that is not RESP at all: a line that does not end
// in CRLF, or that starts with no RESP type byte. It is an ErrProtocol.
type NotRESPError struct {
	// Start is the input's first bytes (at most 40, spaces trimmed).
	Start string
}

func (e *NotRESPError) Error() string {
	return fmt.Sprintf("%s: %q is not RESP", ErrProtocol, e.Start)
}

// Unwrap makes errors.Is(err, ErrProtocol) hold.
func (e *NotRESPError) Unwrap() error { return ErrProtocol }

// HTTP says whether the input is HTTP: a status line, or an HTML page
// (as an HTTP/0.9 answer is).
func (e *NotRESPError) HTTP() bool {
	s := strings.ToLower(e.Start)
	return strings.HasPrefix(s, "http/") || strings.HasPrefix(s, "<!doctype html") || strings.HasPrefix(s, "<html")
}

// notRESP is the error for line b, which is not RESP.
func notRESP(b []byte) error {
	return &NotRESPError{Start: strings.TrimSpace(string(b[:min(len(b), 40)]))}
}

// Limits bound what a Reader accepts, so that a hostile peer cannot make it
// allocate without bound.
type Limits struct {
	// MaxBulk is the largest bulk string, in bytes.
	MaxBulk int64
	// MaxArgs is the largest array (number of arguments of a command).
	MaxArgs int64
	// MaxRequest is the largest total size of one command's arguments.
	MaxRequest int64
	// Budget, when set, is charged for the request buffer's memory as it
	// grows (with the data that actually arrives, never with a length a
	// peer only announced) and refunded when it shrinks; a refused charge
	// ends the read with a protocol error.
	Budget Budget
	// Unauthenticated names the limits as Redis words them for a client
	// that has not logged in ("unauthenticated multibulk length").
	Unauthenticated bool
}

// Budget is shared by the Readers of a server: the bytes of request
// buffers in use.
type Budget interface {
	Reserve(n int64) bool
	Release(n int64)
}

// UnauthenticatedLimits are Redis's limits for a client that has not
// logged in: at most 10 arguments of at most 16 KiB.
var UnauthenticatedLimits = Limits{MaxBulk: 16 << 10, MaxArgs: 10, MaxRequest: 160 << 10, Unauthenticated: true}

// chunk is how much of a bulk string is read (and buffered) at a time.
const chunk = 64 << 10

// DefaultLimits are the limits used when a Reader is given none.
var DefaultLimits = Limits{MaxBulk: 64 << 20, MaxArgs: 1 << 20, MaxRequest: 128 << 20}

// Reader reads RESP from a buffered stream.
type Reader struct {
	br     *bufio.Reader
	limits Limits
	errBuf []byte
	arena  []byte
	ends   []int
	depth  int
	// long holds a line longer than the read buffer (longLine).
	long []byte
	// charged is what the Budget was charged for arena.
	charged int64
}

// NewReader returns a Reader over br with the given limits (zero fields take
// the defaults).
func NewReader(br *bufio.Reader, l Limits) *Reader {
	if l.MaxBulk <= 0 {
		l.MaxBulk = DefaultLimits.MaxBulk
	}
	if l.MaxArgs <= 0 {
		l.MaxArgs = DefaultLimits.MaxArgs
	}
	if l.MaxRequest <= 0 {
		l.MaxRequest = DefaultLimits.MaxRequest
	}
	return &Reader{br: br, limits: l}
}

// SetLimits replaces the limits (a server loosens them once a client has
// logged in); the budget stays.
func (r *Reader) SetLimits(l Limits) {
	b := r.limits.Budget
	r.limits = NewReader(nil, l).limits
	if r.limits.Budget == nil {
		r.limits.Budget = b
	}
}

// grow makes room for n more bytes in the arena, charging the budget.
func (r *Reader) grow(n int) error {
	if cap(r.arena)-len(r.arena) >= n {
		return nil
	}
	newCap := max(2*cap(r.arena), len(r.arena)+n, 4096)
	if r.limits.Budget != nil {
		if !r.limits.Budget.Reserve(int64(newCap - cap(r.arena))) {
			return protoErr("too much request data pending on the server")
		}
		r.charged += int64(newCap - cap(r.arena))
	}
	grown := make([]byte, len(r.arena), newCap)
	copy(grown, r.arena)
	r.arena = grown
	return nil
}

// readChunked appends need bytes to the arena, growing it with the data as
// it arrives.
func (r *Reader) readChunked(need int) error {
	for need > 0 {
		n := min(need, chunk)
		if err := r.grow(n); err != nil {
			return err
		}
		at := len(r.arena)
		r.arena = r.arena[:at+n]
		if _, err := io.ReadFull(r.br, r.arena[at:]); err != nil {
			return err
		}
		need -= n
	}
	return nil
}

// Shrink drops a request buffer above keep bytes (after a large command)
// and refunds the budget.
func (r *Reader) Shrink(keep int) {
	if cap(r.arena) <= keep {
		return
	}
	r.arena = nil
	if r.limits.Budget != nil && r.charged > 0 {
		r.limits.Budget.Release(r.charged)
	}
	r.charged = 0
}

// Release drops the request buffer and refunds the budget (when the
// connection ends).
func (r *Reader) Release() { r.Shrink(-1) }

// Buffered returns the number of bytes already read from the connection and
// not yet consumed.
func (r *Reader) Buffered() int { return r.br.Buffered() }

// Fill reads from the connection once, into the buffer's free space (nil
// without reading when the buffer is full), and returns that read's error;
// the reader stays usable after it (a non-blocking connection's "nothing
// yet" is not kept).
func (r *Reader) Fill() error {
	if r.Full() {
		return nil
	}
	_, err := r.br.Peek(r.br.Buffered() + 1)
	return err
}

// Full says whether the buffer is full (a reply larger than it cannot be
// whole in it).
func (r *Reader) Full() bool { return r.br.Buffered() >= r.br.Size() }

// BufferSize returns the size of the read buffer.
func (r *Reader) BufferSize() int { return r.br.Size() }

// Grow replaces the read buffer by one of size bytes over src (the same
// connection), carrying over the bytes buffered and not yet consumed, so
// that a reply larger than the buffer can be told whole (Complete) in it;
// false (nothing changed) when size is not larger. It allocates.
// A client's buffer starts small and grows this way.
func (r *Reader) Grow(size int, src io.Reader) bool {
	if size <= r.br.Size() {
		return false
	}
	if r.br.Buffered() == 0 {
		r.br = bufio.NewReaderSize(src, size)
		return true
	}
	held := append([]byte(nil), r.Peeked()...)
	r.br = bufio.NewReaderSize(&carried{held: held, src: src}, size)
	_, _ = r.br.Peek(len(held)) // the held bytes are buffered again at once (no read of src)
	return true
}

// carried reads the bytes a replaced buffer held, then its connection.
type carried struct {
	held []byte
	src  io.Reader
}

// Read implements io.Reader; the held bytes come alone, so that an error
// of the connection's (a non-blocking "nothing yet") is never returned
// beside them, where a bufio.Reader would keep it.
func (c *carried) Read(p []byte) (int, error) {
	if len(c.held) == 0 {
		return c.src.Read(p)
	}
	n := copy(p, c.held)
	c.held = c.held[n:]
	return n, nil
}

// line reads one CRLF-terminated line and returns it without the CRLF. The
// slice is valid until the next read.
func (r *Reader) line() ([]byte, error) {
	if cap(r.long) > 4<<10 { // the last long line is no longer valid
		r.long = nil
	}
	b, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) && !r.limits.Unauthenticated {
		b, err = r.longLine(b)
	}
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, protoErr("line too long")
		}
		return nil, err
	}
	if len(b) < 2 || b[len(b)-2] != '\r' {
		return nil, notRESP(b)
	}
	return b[:len(b)-2], nil
}

// maxLine is the longest line (a simple string, an error, an inline
// command) read when it does not fit in the read buffer: Redis's own limit
// for inline commands. A client's read buffer starts small.
const maxLine = 64 << 10

// longLine gathers a line that filled the read buffer, from its first part,
// into a buffer of its own; bufio.ErrBufferFull when it is over maxLine.
func (r *Reader) longLine(part []byte) ([]byte, error) {
	r.long = append(r.long[:0], part...)
	for len(r.long) <= maxLine {
		b, err := r.br.ReadSlice('\n')
		r.long = append(r.long, b...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return r.long, err
		}
	}
	return nil, bufio.ErrBufferFull
}

// ParseInt parses a decimal integer without allocating.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := false
	if b[0] == '-' || b[0] == '+' {
		neg = b[0] == '-'
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<63-1-d)/10+1 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

// Reply summarizes one reply read by ReadReply.
type Reply struct {
	// Type is the reply's first byte: + - : $ * and the RESP3 types _ , # ! = ( % ~ > |.
	Type byte
	// Int is the value of an integer reply, or the length of a bulk string or aggregate.
	Int int64
	// Nil is set for a null bulk string, a null array or a RESP3 null.
	Nil bool
	// Err is the message of an error reply; valid until the next read.
	Err []byte
	// NestedErrors counts error replies inside an aggregate (e.g. EXEC's results).
	NestedErrors int
	// FirstNested is the first nested error message; valid until the next read.
	FirstNested []byte
	// Elems is the number of top-level elements of an aggregate.
	Elems int64
}

// IsError reports whether the reply itself is an error.
func (p *Reply) IsError() bool { return p.Type == '-' || p.Type == '!' }

// Span is the length of the one reply b begins with; ok is false while b
// holds only part of it, bad when b does not begin with a reply. It does
// not allocate.
func Span(b []byte) (n int, ok, bad bool) {
	end, _, complete := scan(b, 1, -1)
	switch {
	case !complete:
		return 0, false, false
	case end == 0:
		return 0, false, true
	}
	return end, true, false
}

// Complete says whether b begins with n whole replies, as ReadReply reads
// them (an attribute before its reply, a null, RESP3's types), so that a
// reader that must not wait can tell whether the replies it is owed have
// all come. It is true also when b is malformed, where ReadReply reports
// the error: a caller waiting for more never waits for bytes that cannot
// come. It does not allocate.
func Complete(b []byte, n int) bool {
	_, _, complete := scan(b, n, -1)
	return complete
}

// scan reads b as Complete does, and also says how long the n replies
// are and whether each is plain (PlainReplies) with bulks of at most
// maxBulk bytes; end and plain mean nothing unless complete, and plain is
// false when b is malformed.
func scan(b []byte, n int, maxBulk int64) (end int, plain, complete bool) {
	pending, plain := int64(n), true
	for pending > 0 {
		nl := bytes.IndexByte(b[end:], '\n')
		if nl < 0 {
			return 0, false, false
		}
		line := b[end : end+nl+1]
		if nl < 2 || line[nl-1] != '\r' {
			return 0, false, true
		}
		t, rest := line[0], line[1:nl-1]
		end += nl + 1
		pending--
		switch t {
		case '+', ':', ',', '(', '#':
		case '_', '-':
			plain = false
		case '$', '!', '=':
			l, ok := ParseInt(rest)
			if !ok || l < -1 {
				return 0, false, true
			}
			plain = plain && t != '!' && l >= 0 && (maxBulk < 0 || l <= maxBulk)
			if l >= 0 {
				if int64(len(b)-end) < l+2 {
					return 0, false, false
				}
				end += int(l) + 2
			}
		case '*', '~', '>', '%', '|':
			c, ok := ParseInt(rest)
			if !ok || c < -1 || c > 1<<40 {
				return 0, false, true
			}
			plain = false
			if c <= 0 {
				continue
			}
			if t == '%' || t == '|' {
				c *= 2
			}
			if t == '|' {
				c++ // the reply the attribute precedes
			}
			pending += c
		default:
			return 0, false, true
		}
	}
	return end, plain, true
}

// PlainState is what PlainReplies found in the buffered bytes.
type PlainState uint8

const (
	// Plain: the bytes begin with the n replies, each of them plain.
	Plain PlainState = iota
	// Short: the bytes end before the n-th reply does (Complete is
	// false): the replies have not all come.
	Short
	// NotPlain: the replies have all come (or are malformed), and one is
	// not plain: ReadReply reads them.
	NotPlain
)

// PlainReplies says, without reading, whether the buffered bytes begin
// with n whole plain replies, and then how long they are. A plain reply
// is one whose summary ReadReply gives by its type alone, and that is
// neither an error, nor a null, nor an aggregate: a simple string, an
// integer, a double, a boolean, a big number, or a bulk or verbatim string
// within the bulk limit. A caller that only counts replies may Skip them
// instead of reading each. It scans as Complete does, once, and does not
// allocate.
func (r *Reader) PlainReplies(n int) (int, PlainState) {
	switch end, plain, complete := scan(r.Peeked(), n, r.limits.MaxBulk); {
	case !complete:
		return 0, Short
	case plain:
		return end, Plain
	}
	return 0, NotPlain
}

// Skip consumes n buffered bytes (at most Buffered()), such as the plain
// replies PlainReplies measured.
func (r *Reader) Skip(n int) { _, _ = r.br.Discard(min(n, r.br.Buffered())) }

// Peeked returns the bytes buffered and not yet consumed, without reading;
// valid until the next read.
func (r *Reader) Peeked() []byte {
	b, _ := r.br.Peek(r.br.Buffered())
	return b
}

// ReadReply reads one complete reply (aggregates included) into out,
// keeping only its summary. It does not allocate once warm.
func (r *Reader) ReadReply(out *Reply) error {
	*out = Reply{}
	r.errBuf = r.errBuf[:0]
	r.depth = 0
	return r.readValue(out, true)
}

func (r *Reader) readValue(out *Reply, top bool) error {
	b, err := r.line()
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return protoErr("empty reply line")
	}
	t, rest := b[0], b[1:]
	if top {
		out.Type = t
	}
	switch t {
	case '+', ':', ',', '(', '_', '#':
		if top && t == ':' {
			out.Int, _ = ParseInt(rest)
		}
		if top && t == '_' {
			out.Nil = true
		}
		return nil
	case '-':
		r.noteError(out, rest, top)
		return nil
	case '$', '!', '=':
		n, ok := ParseInt(rest)
		if !ok || n < -1 || n > r.limits.MaxBulk {
			return protoErr("bad bulk length %q", rest)
		}
		if top {
			out.Int = n
			out.Nil = n == -1
		}
		if n < 0 {
			return nil
		}
		if t == '!' {
			body := make([]byte, n+2)
			if _, err := io.ReadFull(r.br, body); err != nil {
				return err
			}
			r.noteError(out, body[:n], top)
			return nil
		}
		if _, err := r.br.Discard(int(n) + 2); err != nil {
			if errors.Is(err, io.EOF) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		return nil
	case '*', '~', '>', '%', '|':
		n, ok := ParseInt(rest)
		if !ok || n < -1 || n > r.limits.MaxArgs {
			return protoErr("bad aggregate length %q", rest)
		}
		if top {
			out.Int = n
			out.Elems = n
			out.Nil = n == -1
		}
		if n <= 0 {
			return nil
		}
		if t == '%' || t == '|' {
			n *= 2
		}
		r.depth++
		if r.depth > 64 {
			return protoErr("replies nested too deep")
		}
		for i := int64(0); i < n; i++ {
			if err := r.readValue(out, false); err != nil {
				return err
			}
		}
		r.depth--
		if t == '|' { // an attribute precedes the real reply
			return r.readValue(out, top)
		}
		return nil
	default:
		return notRESP(b)
	}
}

func (r *Reader) noteError(out *Reply, msg []byte, top bool) {
	if top {
		r.errBuf = append(r.errBuf[:0], msg...)
		out.Err = r.errBuf
		return
	}
	out.NestedErrors++
	if out.FirstNested == nil {
		start := len(r.errBuf)
		r.errBuf = append(r.errBuf, msg...)
		out.FirstNested = r.errBuf[start:len(r.errBuf):len(r.errBuf)]
	}
}

// ReadCommand reads one command (a RESP array of bulk strings, or an inline
// command line) and returns its arguments. The slices share one buffer that
// is reused by the next call. A nil result with a nil error means an empty
// line, which callers skip.
func (r *Reader) ReadCommand(args [][]byte) ([][]byte, error) {
	args = args[:0]
	r.arena = r.arena[:0]
	r.ends = r.ends[:0]
	b, err := r.line()
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, nil
	}
	if b[0] != '*' {
		return r.inline(b, args)
	}
	n, ok := ParseInt(b[1:])
	if !ok || n > r.limits.MaxArgs {
		if ok && r.limits.Unauthenticated {
			return nil, protoErr("unauthenticated multibulk length")
		}
		return nil, protoErr("invalid multibulk length")
	}
	var total int64
	for i := int64(0); i < n; i++ {
		b, err = r.line()
		if err != nil {
			return nil, err
		}
		if len(b) == 0 || b[0] != '$' {
			return nil, protoErr("expected '$', got '%s'", printable(b))
		}
		l, ok := ParseInt(b[1:])
		if !ok || l < 0 || l > r.limits.MaxBulk {
			if ok && l >= 0 && r.limits.Unauthenticated {
				return nil, protoErr("unauthenticated bulk length")
			}
			return nil, protoErr("invalid bulk length")
		}
		total += l
		if total > r.limits.MaxRequest {
			return nil, protoErr("request larger than %d bytes", r.limits.MaxRequest)
		}
		// Read the bulk string in chunks: the buffer grows with the data
		// that arrives, not with the length the peer announced.
		if at := len(r.arena); cap(r.arena)-at >= int(l)+2 { // room already: one read
			r.arena = r.arena[:at+int(l)+2]
			if _, err := io.ReadFull(r.br, r.arena[at:]); err != nil {
				return nil, err
			}
		} else {
			if err := r.readChunked(int(l) + 2); err != nil {
				return nil, err
			}
		}
		if r.arena[len(r.arena)-2] != '\r' || r.arena[len(r.arena)-1] != '\n' {
			return nil, protoErr("bulk string not terminated by CRLF")
		}
		r.arena = r.arena[:len(r.arena)-2]
		r.ends = append(r.ends, len(r.arena))
	}
	start := 0
	for _, e := range r.ends {
		args = append(args, r.arena[start:e:e])
		start = e
	}
	if len(args) == 0 {
		return nil, nil
	}
	return args, nil
}

func (r *Reader) inline(b []byte, args [][]byte) ([][]byte, error) {
	r.arena = append(r.arena[:0], b...)
	line := r.arena
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			args = append(args, line[i:j:j])
		}
		i = j
	}
	if len(args) == 0 {
		return nil, nil
	}
	return args, nil
}

func printable(b []byte) string {
	if len(b) > 32 {
		b = b[:32]
	}
	return strconv.Quote(string(b))
}

// ReadText reads one simple string, bulk string, integer or error reply and
// returns its text. isErr is set for an error reply; a null reply gives ""
// and isNil. Other reply types are a protocol error. It allocates (for tools,
// not the hot path).
func (r *Reader) ReadText() (text string, isErr, isNil bool, err error) {
	b, err := r.line()
	if err != nil {
		return "", false, false, err
	}
	if len(b) == 0 {
		return "", false, false, protoErr("empty reply line")
	}
	switch b[0] {
	case '+', ':':
		return string(b[1:]), false, false, nil
	case '-':
		return string(b[1:]), true, false, nil
	case '_':
		return "", false, true, nil
	case '$':
		n, ok := ParseInt(b[1:])
		if !ok || n < -1 || n > r.limits.MaxBulk {
			return "", false, false, protoErr("bad bulk length %q", b[1:])
		}
		if n < 0 {
			return "", false, true, nil
		}
		body := make([]byte, n+2)
		if _, err := io.ReadFull(r.br, body); err != nil {
			return "", false, false, err
		}
		return string(body[:n]), false, false, nil
	case '*':
		n, _ := ParseInt(b[1:])
		if n < 0 {
			return "", false, true, nil
		}
		return "", false, false, protoErr("expected a string reply, got an array")
	}
	if !strings.ContainsRune(replyTypes, rune(b[0])) {
		return "", false, false, notRESP(b)
	}
	return "", false, false, protoErr("expected a string reply, got %q", b[0])
}

// replyTypes are the first bytes of RESP2 and RESP3 replies.
const replyTypes = "+-:$*_,#!=(%~>|"

// ReadStrings reads a reply that should be an array of bulk strings (a
// search's keys and distances) into args, reusing its buffers. Any other
// reply (an error among them) is read whole into rep and args is nil.
func (r *Reader) ReadStrings(args [][]byte, rep *Reply) ([][]byte, error) {
	b, err := r.br.Peek(1)
	if err != nil {
		return nil, err
	}
	if b[0] == '*' {
		return r.ReadCommand(args)
	}
	return nil, r.ReadReply(rep)
}
