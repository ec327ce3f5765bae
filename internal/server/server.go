// Package server is tairbench's embedded Tair-compatible server: RESP2/3,
// transactions, accounts, the generic keyspace and string commands and the
// TairRoaring (TR.*), TairSearch (TFT.*) and TairVector (TVS.*) modules,
// so that every workload runs without a Tair instance.
package server

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/pkg/resp"
)

// Config configures a server.
type Config struct {
	// Addr is the listen address; ":0" or "127.0.0.1:0" picks a free port.
	Addr string
	// Password, if set, is the default user's, required by AUTH (as
	// "password", "default password" or Tair's single "default:password").
	Password string
	// Users are named accounts (name → password), each allowed every
	// command and key; AUTH takes "name password" or Tair's "name:password".
	// With accounts and no Password, the default user cannot log in.
	Users map[string]string
	// MaxClients bounds concurrent connections (default 10000).
	MaxClients int
	// MaxRequest bounds one command's total argument bytes (default 64 MiB):
	// the per-connection budget for pending request bytes.
	MaxRequest int64
	// MaxPending bounds the request bytes buffered by all connections
	// together (default 1 GiB); a connection that would pass it gets an
	// error and is closed.
	MaxPending int64
	// Databases is the number of SELECTable databases (default 16).
	Databases int
	// MaxQueryBytes bounds one search request's body (TFT.SEARCH,
	// TFT.MSEARCH, TFT.EXPLAINSCORE, TFT.EXPLAINCOST; default 1 MiB).
	MaxQueryBytes int64
	// MaxQueryMemory bounds the memory the search requests running at once
	// may take together, each charged QueryCost of its body (default
	// 256 MiB); past it a request is refused.
	MaxQueryMemory int64
	// Search bounds each search request's terms, clauses, expansions and
	// buckets (zero fields: fulltext's defaults).
	Search fulltext.Limits
}

// QueryCost is the memory a search request is charged while it runs, per
// byte of its body: twice what eight 1 MB match queries of 150,000 terms
// running at once took (123 MB of resident memory, about 15× their bodies).
const QueryCost = 32

// Server is a running server.
type Server struct {
	reg     *registry
	cfg     Config
	ln      net.Listener
	dbs     []*db
	started time.Time
	// runID names this server's life in INFO (run_id), as Redis's does.
	runID   string
	wg      sync.WaitGroup
	closing atomic.Bool

	mu    sync.Mutex
	conns map[*conn]struct{}

	clients    atomic.Int64
	totalConns atomic.Int64
	totalCmds  atomic.Int64
	rejected   atomic.Int64
	// keyspaceHits and keyspaceMisses count reads that found their key or
	// not (INFO stats, as Redis's lookupKeyRead counts them).
	keyspaceHits, keyspaceMisses atomic.Int64
	nextID                       atomic.Int64
	stats                        []cmdStat
	pending                      pendingBudget
	queries                      queryBudget // the search requests running
	trim                         trimmer
	accounts                     *accounts
}

// cmdStat counts one command's calls.
type cmdStat struct {
	calls  atomic.Int64
	failed atomic.Int64
	// nanos is the time spent in the command's handler (its locks held),
	// INFO commandstats' usec.
	nanos atomic.Int64
}

// Start listens on cfg.Addr and serves in the background.
func Start(cfg Config) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = 10000
	}
	if cfg.MaxRequest <= 0 {
		cfg.MaxRequest = 64 << 20
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 1 << 30
	}
	if cfg.Databases <= 0 {
		cfg.Databases = 16
	}
	if cfg.MaxQueryBytes <= 0 {
		cfg.MaxQueryBytes = 1 << 20
	}
	if cfg.MaxQueryMemory <= 0 {
		cfg.MaxQueryMemory = 256 << 20
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("server: listen %s: %w", cfg.Addr, err)
	}
	reg := newRegistry()
	s := &Server{cfg: cfg, ln: ln, started: time.Now(), runID: newRunID(), conns: map[*conn]struct{}{}, reg: reg, stats: make([]cmdStat, len(reg.list))}
	s.pending.max = cfg.MaxPending
	s.queries.max = cfg.MaxQueryMemory
	s.cfg.Search.Cancelled = s.closing.Load // Close stops the searches running
	s.accounts = newAccounts(cfg)
	for i := 0; i < cfg.Databases; i++ {
		s.dbs = append(s.dbs, newDB())
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops accepting, closes every connection and waits for them.
func (s *Server) Close() error {
	if !s.closing.CompareAndSwap(false, true) {
		return nil
	}
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return err
}

// Serve blocks until ctx ends, then closes the server.
func (s *Server) Serve(ctx context.Context) error {
	<-ctx.Done()
	return s.Close()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if s.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // e.g. too many open files
			continue
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		if s.clients.Load() >= int64(s.cfg.MaxClients) {
			s.rejected.Add(1)
			_, _ = nc.Write([]byte("-ERR max number of clients reached\r\n"))
			_ = nc.Close()
			continue
		}
		c := s.newConn(nc)
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.clients.Add(1)
		s.totalConns.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			c.serve()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			s.clients.Add(-1)
			s.trim.closed()
		}()
	}
}

// conn is one client connection, served by one goroutine.
type conn struct {
	s       *Server
	nc      net.Conn
	r       *resp.Reader
	out     []byte
	id      int64
	dbIndex int
	authed  bool
	user    string // "" is the default user
	proto   int
	name    string
	closing bool

	inMulti   bool
	dirty     bool
	queue     [][][]byte
	locks     lockSet
	lower     [64]byte
	offsetBuf []uint32
	// holdsAll is set while EXEC holds every database's locks.
	holdsAll bool
}

func (s *Server) newConn(nc net.Conn) *conn {
	c := &conn{
		s:      s,
		nc:     nc,
		id:     s.nextID.Add(1),
		authed: !s.authRequired(),
		proto:  2,
		out:    make([]byte, 0, 4096),
	}
	l := s.limits()
	if !c.authed {
		l = resp.UnauthenticatedLimits
		l.Budget = &s.pending
	}
	c.r = resp.NewReader(bufio.NewReaderSize(nc, 16<<10), l)
	return c
}

// limits are the request limits of a logged-in client.
func (s *Server) limits() resp.Limits {
	return resp.Limits{MaxBulk: s.cfg.MaxRequest, MaxRequest: s.cfg.MaxRequest, Budget: &s.pending}
}

// login marks the connection authenticated as user and lifts Redis's
// limits for unauthenticated clients.
func (c *conn) login(user string) {
	if user != "default" {
		c.user = user
	} else {
		c.user = ""
	}
	if !c.authed {
		c.authed = true
		c.r.SetLimits(c.s.limits())
	}
}

// limitHint names the server's limit and its flag behind a refusal, so
// that a client learns which setting refused its request.
func (c *conn) limitHint(msg string) string {
	switch {
	case strings.HasPrefix(msg, "request larger than"), msg == "invalid bulk length":
		return fmt.Sprintf(" (this server takes at most %d bytes a request: tairbench serve --max-request)", c.s.cfg.MaxRequest)
	case strings.HasPrefix(msg, "too much request data pending"):
		return fmt.Sprintf(" (all connections may have %d bytes pending together: tairbench serve --max-pending)", c.s.cfg.MaxPending)
	}
	return ""
}

// A refused connection reads what its client still sends for up to
// lingerFor and lingerBytes before it closes.
const (
	lingerFor   = time.Second
	lingerBytes = 256 << 20
)

// linger, after a refusal that ends the connection, stops sending and
// reads and drops what the client still sends (its refused request's
// rest) for a while: closing with that data unread would reset the
// connection, and the client, its write failing, would never read the
// refusal and the limit it names.
func (c *conn) linger() {
	if cw, ok := c.nc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(lingerFor))
	buf := make([]byte, 32<<10) // a refusal's, not every connection's
	for n := 0; n < lingerBytes; {
		k, err := c.nc.Read(buf)
		if err != nil {
			return
		}
		n += k
	}
}

// keepBuffer is the request buffer a connection keeps between commands.
const keepBuffer = 1 << 20

const flushAt = 64 << 10

func (c *conn) serve() {
	defer c.nc.Close()
	defer c.r.Release()
	var args [][]byte
	for !c.closing {
		var err error
		args, err = c.r.ReadCommand(args)
		if err != nil {
			if errors.Is(err, resp.ErrProtocol) {
				msg := strings.TrimPrefix(err.Error(), resp.ErrProtocol.Error()+": ")
				c.out = resp.AppendError(c.out, "ERR Protocol error: "+msg+c.limitHint(msg))
				if c.flush() == nil {
					c.linger()
				}
			}
			return
		}
		if args == nil {
			continue
		}
		c.dispatch(args)
		c.r.Shrink(keepBuffer) // a large request's buffer is not kept
		// Answer a pipeline with one write: flush only when no further
		// request is already buffered, or when the reply buffer is large.
		if c.r.Buffered() == 0 || len(c.out) >= flushAt {
			if c.flush() != nil {
				return
			}
		}
	}
	_ = c.flush()
}

func (c *conn) flush() error {
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.nc.Write(c.out)
	if cap(c.out) > 1<<20 {
		c.out = make([]byte, 0, 4096) // do not keep a huge buffer for an idle client
	} else {
		c.out = c.out[:0]
	}
	return err
}

func (c *conn) db() *db { return c.s.dbs[c.dbIndex] }

// lookup finds a command by case-insensitive name without allocating.
func (c *conn) lookup(name []byte) *Command {
	if len(name) > len(c.lower) {
		return nil
	}
	b := c.lower[:len(name)]
	for i, ch := range name {
		if ch >= 'A' && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		b[i] = ch
	}
	return c.s.reg.table[string(b)]
}

func (c *conn) errorf(format string, a ...any) {
	c.out = resp.AppendError(c.out, fmt.Sprintf(format, a...))
}

func arityErr(name string) string {
	return fmt.Sprintf("ERR wrong number of arguments for '%s' command", strings.ToLower(name))
}

func (c *conn) dispatch(args [][]byte) {
	c.s.totalCmds.Add(1)
	cmd := c.lookup(args[0])
	if cmd == nil {
		c.unknown(args)
		if c.inMulti {
			c.dirty = true
		}
		return
	}
	if !c.authed && cmd.Flags&flagNoAuth == 0 {
		c.out = append(c.out, "-NOAUTH Authentication required.\r\n"...)
		if c.inMulti {
			c.dirty = true
		}
		return
	}
	if !cmd.arityOK(len(args)) {
		c.out = resp.AppendError(c.out, arityErr(cmd.Name))
		c.s.stats[cmd.id].failed.Add(1)
		if c.inMulti {
			c.dirty = true
		}
		return
	}
	if c.inMulti && cmd.Flags&flagTxControl == 0 {
		q := make([][]byte, len(args))
		for i, a := range args {
			q[i] = append([]byte(nil), a...)
		}
		c.queue = append(c.queue, q)
		c.out = append(c.out, "+QUEUED\r\n"...)
		return
	}
	c.run(cmd, args, true)
}

func (c *conn) unknown(args [][]byte) {
	var b strings.Builder
	for i, a := range args[1:] {
		if i == 8 {
			break
		}
		fmt.Fprintf(&b, "'%s' ", printable(a))
	}
	c.errorf("ERR unknown command '%s', with args beginning with: %s", printable(args[0]), b.String())
}

func printable(b []byte) string {
	if len(b) > 64 {
		b = b[:64]
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, string(b))
}

// run executes cmd, taking its shard locks unless the caller holds them.
func (c *conn) run(cmd *Command, args [][]byte, lock bool) {
	st := &c.s.stats[cmd.id]
	st.calls.Add(1)
	before := len(c.out)
	if lock && cmd.Flags&flagNoKeys == 0 {
		d := c.db()
		c.locks.reset(cmd.Flags&flagWrite != 0)
		cmd.keys(args, &c.locks)
		c.locks.normalize()
		d.lock(&c.locks)
		start := time.Now()
		cmd.Handler(c, args)
		st.nanos.Add(int64(time.Since(start)))
		d.unlock(&c.locks)
	} else {
		start := time.Now()
		cmd.Handler(c, args)
		st.nanos.Add(int64(time.Since(start)))
	}
	if len(c.out) > before && c.out[before] == '-' {
		st.failed.Add(1)
	}
}

// exec runs the queued transaction atomically: it locks the union of the
// queued commands' shards, then runs each command.
func (c *conn) exec() {
	queue := c.queue
	c.queue, c.inMulti = nil, false
	if c.dirty {
		c.dirty = false
		c.out = append(c.out, "-EXECABORT Transaction discarded because of previous errors.\r\n"...)
		return
	}
	var ls lockSet
	ls.reset(true)
	allDBs := false
	for _, q := range queue {
		cmd := c.lookup(q[0])
		switch {
		case cmd.Flags&(flagSelect|flagAllDBs) != 0:
			allDBs = true
		case cmd.Flags&flagNoKeys != 0:
		default:
			cmd.keys(q, &ls)
		}
	}
	c.out = resp.AppendArray(c.out, len(queue))
	if allDBs {
		// SELECT, FLUSHALL or INFO inside the transaction: hold every database.
		ls.all = true
		for _, d := range c.s.dbs {
			d.lock(&ls)
		}
		c.holdsAll = true
		for _, q := range queue {
			c.run(c.lookup(q[0]), q, false)
		}
		c.holdsAll = false
		for _, d := range c.s.dbs {
			d.unlock(&ls)
		}
		return
	}
	ls.normalize()
	d := c.db()
	d.lock(&ls)
	for _, q := range queue {
		c.run(c.lookup(q[0]), q, false)
	}
	d.unlock(&ls)
}

// Counters are the server's running totals, cheap to read at any time
// (for a metrics endpoint); keys and memory need INFO, which locks.
type Counters struct {
	Commands, Rejected, ConnectionsTotal, Clients, PendingBytes int64
	Uptime                                                      time.Duration
}

// Counters reads the server's running totals.
func (s *Server) Counters() Counters {
	return Counters{Commands: s.totalCmds.Load(), Rejected: s.rejected.Load(), ConnectionsTotal: s.totalConns.Load(),
		Clients: s.clients.Load(), PendingBytes: s.pending.used.Load(), Uptime: time.Since(s.started)}
}

// newRunID is 40 random hex digits, as Redis's run_id.
func newRunID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
