package redis

import (
	"context"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/pollset"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
)

// clusterWindow keeps up to N commands in flight on each of its
// connections to a cluster's nodes, as memtier_benchmark's --pipeline does
// with --cluster-mode. Commands are drawn in order and each goes to the
// node that serves its key's slot, until every node's window is full. A
// command drawn for a node whose window is full waits for room there (as
// memtier's per-connection key pools hold keys drawn for another
// connection); once a node has N waiting beside its N in flight, the
// worker draws no more until one of its replies is read. (memtier's pools
// hold up to 500,000 keys, so its other connections go on while one node
// stalls; here the worker stops drawing once the stalled node has N
// waiting, while the other nodes' commands in flight still complete.)
//
// Each Exec reads one reply. It takes a reply already read into a
// connection's buffer first, else the one of the node whose oldest command
// went first if it comes within headWait (or four times the usual). Past
// that, on Linux, every node's connection is watched at once in a pollset,
// and it reads a node whose connection has data (the earliest-sent among
// them), or the first to get some, until the earliest-sent node is no
// longer overdue calmReads times in a row. Elsewhere, and over TLS, it
// waits for the earliest-sent node, and a reply of another node that came
// meanwhile counts that wait. Once replies were read from a node and none
// is left in its buffer, the commands waiting for it go in one write, as
// memtier's event loop refills a connection after reading what came (a
// node with none in flight gets its commands at once).
//
// MOVED and ASK send the command again, to the new owner or, after ASKING,
// to the importing node, at most cluster.MaxRedirects times; its latency still
// runs from its first send.
type clusterWindow struct {
	cluster.Router
	f          *Factory
	gens       []*cmdtmpl.Gen
	keys, args []int
	pick       *picker
	n          int
	// wins are the windows of every node met, in the order met; byNode
	// maps the bound slot map's nodes to them.
	wins   []*nodeWindow
	byNode []int
	bound  *cluster.Topology
	// below counts the windows with fewer than n commands (in flight and
	// waiting), over those with more than 2n: the worker draws while one is
	// below and none is over.
	below, over int
	// set watches the nodes' connections for replies (nil: not on this
	// system, or it could not be made); the run's end interrupts its wait
	// (unhook undoes that).
	set    *pollset.Set
	unhook func() bool
	// ready lists the windows (their index) the set last saw with data
	// and that were not read since.
	ready []int32
	// watching: the node connections are in the set (an open loop, or a
	// closed loop since the earliest-sent node kept it waiting); open: an
	// open loop; calm: replies in a row that came first from that node.
	watching, open bool
	calm           int
	// usual is a running mean of how long the earliest-sent node's
	// replies took, waited for alone.
	usual time.Duration
	// pend is the command PrepareOne drew, for pendNode, until SendOne
	// (an open loop).
	pend     flight
	pendNode *nodeWindow
	drawn    int64
	out      []byte
	errBuf   []byte
}

// nodeWindow is one node's commands, in a ring: flying in flight from
// head, then queued not sent yet.
type nodeWindow struct {
	addr                 string
	c                    *transport.Conn
	ring                 []flight
	head, flying, queued int
	// watched: c's descriptor is in the worker's pollset; read: a reply
	// was read from it since its last write.
	watched, read bool
}

// flight is one command: its encoded bytes (kept to send it again after a
// redirection), its first send (zero: not sent yet) and, in an open loop,
// its intended start, its operation and slot, the redirections it
// followed, whether ASKING goes before it, and the bytes it has sent and
// read so far (every send and reply of it, a redirection's included),
// which its reply's Step carries.
type flight struct {
	cmd      []byte
	sent     time.Time
	intended time.Time
	op       int
	slot     int
	hops     int
	ask      bool
	out, in  int
}

func newClusterWindow(f *Factory, cs *cluster.State, ctx context.Context, gens []*cmdtmpl.Gen, pick *picker) *clusterWindow {
	keys, args := keyPositions(f.Workload)
	w := &clusterWindow{Router: cluster.NewRouter(ctx, &f.Target, cs), f: f, gens: gens, keys: keys, args: args, pick: pick, n: f.Workload.N}
	if pollset.Supported && f.Target.TLS == nil {
		if set, err := pollset.New(16); err == nil { // none: read the earliest node, as elsewhere
			w.set, w.unhook = set, context.AfterFunc(ctx, set.Interrupt)
		}
	}
	return w
}

func (nw *nodeWindow) load() int { return nw.flying + nw.queued }

func (nw *nodeWindow) at(i int) *flight { return &nw.ring[(nw.head+i)%len(nw.ring)] }

// follow binds the current slot map and maps its nodes to windows.
func (w *clusterWindow) follow() *cluster.Topology {
	topo := w.Bind()
	if topo != w.bound {
		w.bound = topo
		w.byNode = w.byNode[:0]
		for _, a := range topo.Addrs {
			w.byNode = append(w.byNode, w.windowOf(a))
		}
	}
	return topo
}

// windowOf is addr's window, made when addr is new.
func (w *clusterWindow) windowOf(addr string) int {
	for i, nw := range w.wins {
		if nw.addr == addr {
			return i
		}
	}
	w.wins = append(w.wins, &nodeWindow{addr: addr, ring: make([]flight, 2*w.n+1)})
	w.below++
	return len(w.wins) - 1
}

// tail is the ring entry after the last one, the ring grown when full
// (a node holds 2n+1 at most, unless redirections bring it more).
func (nw *nodeWindow) tail() *flight {
	if nw.load() == len(nw.ring) {
		ring := make([]flight, 2*len(nw.ring))
		for i := range nw.load() {
			ring[i] = *nw.at(i)
		}
		nw.ring, nw.head = ring, 0
	}
	return nw.at(nw.load())
}

// queue counts the tail entry as waiting in nw.
func (w *clusterWindow) queue(nw *nodeWindow) {
	nw.queued++
	w.count(nw, nw.load()-1)
}

// pop removes nw's head entry (in flight, or waiting when none is).
func (w *clusterWindow) pop(nw *nodeWindow) {
	nw.head = (nw.head + 1) % len(nw.ring)
	if nw.flying > 0 {
		nw.flying--
	} else {
		nw.queued--
	}
	w.count(nw, nw.load()+1)
}

// count follows nw's load from was in below and over.
func (w *clusterWindow) count(nw *nodeWindow, was int) {
	now := nw.load()
	w.below += b2i(now < w.n) - b2i(was < w.n)
	w.over += b2i(now > 2*w.n) - b2i(was > 2*w.n)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Prepare draws commands into the windows of their nodes until every
// window is full, or one holds 2N, or the worker's limit is drawn; not
// timed.
func (w *clusterWindow) Prepare() {
	topo := w.follow()
	lim := w.f.Workload.WindowLimit
	for w.below > 0 && w.over == 0 && (lim == 0 || w.drawn < lim) {
		gen, op, slot, nw := w.drawOne(topo)
		w.encode(nw.tail(), gen, op, slot)
		w.queue(nw)
	}
}

// drawOne draws the next command: its generator (to encode it from),
// operation, slot, and the window of the node that serves the slot.
func (w *clusterWindow) drawOne(topo *cluster.Topology) (*cmdtmpl.Gen, int, int, *nodeWindow) {
	op := w.pick.pick()
	gen := w.gens[op]
	gen.Draw()
	slot := cluster.DrawnSlot(gen, w.keys[op], w.args[op])
	w.drawn++
	return gen, op, slot, w.wins[w.byNode[cluster.NodeFor(topo, slot)]]
}

// encode makes e the command gen drew, not sent yet.
func (w *clusterWindow) encode(e *flight, gen *cmdtmpl.Gen, op, slot int) {
	e.cmd = gen.AppendDrawn(e.cmd[:0])
	e.sent, e.intended, e.op, e.slot, e.hops, e.ask, e.out, e.in = time.Time{}, time.Time{}, op, slot, 0, false, 0, 0
}

// StampsSends implements engine.SendStamper: every reply Exec counts
// carries its own command's send time.
func (*clusterWindow) StampsSends() {}

var _ engine.SendStamper = (*clusterWindow)(nil)

// Exec sends what the windows have room for and reads one reply; a
// redirection's command goes again and the next reply is read.
func (w *clusterWindow) Exec(ctx context.Context, s *engine.Step) error {
	for {
		if err := w.send(s); err != nil {
			return err
		}
		nw := w.nextBy(ctx, time.Time{})
		if nw == nil {
			return engine.ErrDone // the limit is drawn and every reply read
		}
		if done, err := w.readOne(nw, s); done || err != nil {
			return err
		}
	}
}

// send writes the waiting commands that fit their node's window, in one
// write a node: to a node with none in flight, and to one that replies
// were read from since its last write once its buffered replies are all
// taken (as an event loop refills a connection after reading what came).
func (w *clusterWindow) send(s *engine.Step) error {
	for _, nw := range w.wins {
		if nw.flying > 0 && (!nw.read || nw.c.Buffered() > 0) {
			continue
		}
		if err := w.flush(nw, s); err != nil {
			return err
		}
	}
	return nil
}

// flush writes nw's waiting commands that fit its window, in one write,
// connecting first when it has no connection.
func (w *clusterWindow) flush(nw *nodeWindow, s *engine.Step) error {
	if nw.queued == 0 || nw.flying >= w.n {
		return nil
	}
	if nw.c == nil {
		c, err := w.Links.To(nw.addr)
		if err != nil {
			w.reroute(nw)
			return err // a failed connect (engine.ConnectError): nothing was sent
		}
		nw.c = c
		w.watch(nw)
	}
	// A command's latency runs from before its first write (a redirected
	// one keeps it).
	k, now := min(nw.queued, w.n-nw.flying), time.Now()
	w.out = w.out[:0]
	for i := range k {
		e := nw.at(nw.flying + i)
		at := len(w.out)
		if e.ask {
			w.out = append(w.out, cluster.Asking...)
		}
		w.out = append(w.out, e.cmd...)
		e.out += len(w.out) - at
		if e.sent.IsZero() {
			e.sent = now
		}
	}
	nw.flying, nw.queued = nw.flying+k, nw.queued-k // lost with the connection if the write fails
	nw.read = false
	if err := nw.c.Write(w.out); err != nil {
		return w.lose(nw, s, err)
	}
	return nil
}

// nextBy is the window to read a reply from: one with data buffered, else
// one whose connection has data; nil when none has a command in flight,
// or, when until is not zero, none came by then (a failed wait leaves its
// error to the head's read).
func (w *clusterWindow) nextBy(ctx context.Context, until time.Time) *nodeWindow {
	var best *nodeWindow
	flying := 0
	for i, nw := range w.wins {
		switch {
		case nw.flying == 0:
			continue
		case nw.c.Buffered() > 0:
			w.unnote(int32(i)) // what the set saw is being read
			return nw
		case best == nil || nw.at(0).sent.Before(best.at(0).sent):
			best = nw
		}
		flying++
	}
	switch {
	case best == nil:
		return nil
	case !until.IsZero():
		w.open = true // an open loop watches every node from now on
		if w.watchAll() {
			return w.arrived(best, until)
		}
		if came, err := best.c.WaitUntil(ctx, until); !came && err == nil {
			return nil
		}
		return best
	case w.set == nil || flying < 2:
		return best
	}
	// Most replies come in the order their commands went: the earliest-sent
	// node first (no system call beyond its read), for four times as long
	// as its replies usually take; then whichever node has data, until the
	// earliest-sent node is no longer overdue calmReads times in a row.
	due := best.at(0).sent.Add(max(headWait, 4*w.usual))
	if !w.watching {
		came, err := best.c.WaitUntil(ctx, due)
		if came {
			w.usual += (time.Since(best.at(0).sent) - w.usual) / 16
		}
		if came || err != nil || !w.watchAll() {
			return best
		}
	} else if !w.open {
		w.calm = b2i(time.Now().Before(due)) * (w.calm + 1)
		if w.calm >= calmReads {
			w.unwatchAll()
			return w.nextBy(ctx, until)
		}
	}
	return w.arrived(best, time.Time{})
}

// headWait is the least a closed loop waits for the node whose oldest
// command went first (from that command's send) before it reads
// whichever node has data; it waits four times as long as that node's
// replies usually take when that is longer. A reply that came meanwhile
// on another node counts at most that much more.
const headWait = time.Millisecond

// calmReads is how many reads in a row must find the node whose oldest
// command went first not overdue before a closed loop stops watching every
// node (watched, each reply on any node costs the kernel a wake of the set
// too: about a fifth more client CPU at -P 16 on three nodes).
const calmReads = 256

// arrived is a window whose connection has data, among those with
// commands in flight: of those the set saw ready (a poll's list serves
// several reads), the one whose oldest command went first; when none has
// data, the first to get some, by until when it is not zero (nil when
// none came by then). When none comes by the first of their connections'
// deadlines, or the set fails or is interrupted, it is that connection's
// window (or head, the earliest-sent): its read then fails or reads as
// without the set.
func (w *clusterWindow) arrived(head *nodeWindow, until time.Time) *nodeWindow {
	if nw := w.takeReady(); nw != nil {
		return nw
	}
	tags, err := w.set.Ready()
	if err == nil && len(tags) == 0 {
		first := head
		for _, nw := range w.wins {
			if nw.flying > 0 && nw.c.Deadline.Before(first.c.Deadline) {
				first = nw
			}
		}
		by := first.c.Deadline
		if !until.IsZero() && until.Before(by) {
			by = until
		}
		if !time.Now().Before(by) {
			return w.lapsed(first, until)
		}
		if tags, err = w.set.Wait(by); err == nil && len(tags) == 0 {
			return w.lapsed(first, until)
		}
	}
	if err != nil {
		return head
	}
	w.ready = append(w.ready[:0], tags...)
	if nw := w.takeReady(); nw != nil {
		return nw
	}
	return head // data only where nothing is in flight (a push, a close), or interrupted: the head's read
}

// lapsed is what a wait that saw no data returns: nil when until came
// (the caller's bound), else first, whose connection's deadline came and
// whose read times out.
func (w *clusterWindow) lapsed(first *nodeWindow, until time.Time) *nodeWindow {
	if now := time.Now(); !until.IsZero() && !now.Before(until) && now.Before(first.c.Deadline) {
		return nil
	}
	return first
}

// takeReady takes from the windows the set saw ready the one whose oldest
// command went first, dropping those with nothing in flight; nil when none
// is left.
func (w *clusterWindow) takeReady() *nodeWindow {
	best := -1
	for i := 0; i < len(w.ready); {
		tag := w.ready[i]
		if tag < 0 || int(tag) >= len(w.wins) || w.wins[tag].flying == 0 {
			w.dropReady(i)
			continue
		}
		if best < 0 || w.wins[tag].at(0).sent.Before(w.wins[w.ready[best]].at(0).sent) {
			best = i
		}
		i++
	}
	if best < 0 {
		return nil
	}
	nw := w.wins[w.ready[best]]
	w.dropReady(best)
	return nw
}

// unnote forgets that the set saw window tag ready: its data is being read.
func (w *clusterWindow) unnote(tag int32) {
	for i, t := range w.ready {
		if t == tag {
			w.dropReady(i)
			return
		}
	}
}

func (w *clusterWindow) dropReady(i int) {
	last := len(w.ready) - 1
	w.ready[i] = w.ready[last]
	w.ready = w.ready[:last]
}

// watch adds nw's connection to the pollset, under nw's index; a
// connection that cannot be watched (no descriptor) is read as elsewhere.
func (w *clusterWindow) watch(nw *nodeWindow) bool {
	if nw.watched || nw.c == nil {
		return nw.watched
	}
	fd, ok := nw.c.FD()
	if !ok {
		return false
	}
	for i, x := range w.wins {
		if x == nw {
			nw.watched = w.set.Add(fd, int32(i)) == nil
		}
	}
	return nw.watched
}

// watchAll puts every node's connection in the pollset (until unwatchAll);
// false when there is no set or a connection with commands in flight
// cannot be watched.
func (w *clusterWindow) watchAll() bool {
	if w.set == nil {
		return false
	}
	w.watching, w.calm = true, 0
	all := true
	for _, nw := range w.wins {
		all = (w.watch(nw) || nw.flying == 0) && all
	}
	return all
}

// unwatchAll takes the connections out of the pollset.
func (w *clusterWindow) unwatchAll() {
	for _, nw := range w.wins {
		if nw.watched {
			if fd, ok := nw.c.FD(); ok {
				_ = w.set.Remove(fd)
			}
			nw.watched = false
		}
	}
	w.watching, w.ready = false, w.ready[:0]
}

// readOne reads nw's oldest command's reply: true when it was counted,
// false when it was a redirection (the command waits to go again).
func (w *clusterWindow) readOne(nw *nodeWindow, s *engine.Step) (bool, error) {
	c, e := nw.c, nw.at(0)
	nw.read = true
	rx := c.Consumed()
	if e.ask { // ASKING's reply first
		if err := c.Read(&w.Rep); err != nil {
			return false, w.lose(nw, s, err)
		}
	}
	done, err := c.ReadStamped(&w.Rep)
	if err != nil {
		return false, w.lose(nw, s, err)
	}
	e.in += int(c.Consumed() - rx)
	if w.Rep.IsError() && e.hops < cluster.MaxRedirects {
		if ask, slot, addr, ok := cluster.Redirect(w.Rep.Err); ok {
			w.State.Followed(ask, slot, addr)
			w.follow()
			to := w.wins[w.windowOf(addr)]
			e.hops++
			e.ask = ask
			w.move(nw, to)
			return false, nil
		}
	}
	countReply(s, &w.Rep, &w.errBuf)
	s.Sent, s.Done, s.Op, s.BytesOut, s.BytesIn = e.sent, done, e.op, e.out, e.in
	w.pop(nw)
	return true, nil
}

// move takes from's head entry to the end of to's waiting commands. The
// entry it leaves takes the tail's command buffer, so that none is shared.
func (w *clusterWindow) move(from, to *nodeWindow) {
	src := from.at(0)
	e := *src
	w.pop(from)
	t := to.tail()
	if t != src {
		src.cmd = t.cmd
	}
	*t = e
	w.queue(to)
}

// reroute sends a node's waiting commands (none in flight: its connection
// failed) to their slots' owners under the current map, which a failed
// connect has the cluster reload; those whose owner is unchanged stay.
func (w *clusterWindow) reroute(nw *nodeWindow) {
	topo := w.follow()
	for k := nw.queued; k > 0; k-- {
		to := w.wins[w.byNode[cluster.NodeFor(topo, nw.at(0).slot)]]
		w.move(nw, to)
	}
}

// lose drops nw's connection: its commands in flight are lost with it, and
// those not sent yet too (each command drawn is either answered or
// counted lost).
func (w *clusterWindow) lose(nw *nodeWindow, s *engine.Step, err error) error {
	s.Lost = max(nw.load(), 1)
	if nw.load() > 0 {
		s.Op = nw.at(0).op
	}
	for nw.load() > 0 {
		w.pop(nw)
	}
	w.Drop(nw.c)
	nw.c, nw.watched = nil, false // closed: out of the pollset too
	return err
}

// Drain reads the replies still in flight when the run ended (commands
// not sent by then are not sent; one redirected goes again).
func (w *clusterWindow) Drain(ctx context.Context, s *engine.Step) error {
	var conns []*transport.Conn
	for _, nw := range w.wins {
		w.forgetUnsent(nw)
		if nw.c != nil {
			conns = append(conns, nw.c)
		}
	}
	set := w.set // read here: the callback runs on another goroutine
	stop := context.AfterFunc(ctx, func() {
		for _, c := range conns {
			_ = c.NetConn.SetReadDeadline(time.Now())
		}
		if set != nil {
			set.Interrupt()
		}
	})
	defer stop()
	for {
		err := ctx.Err()
		if err == nil {
			err = w.send(s)
		}
		nw := w.nextBy(ctx, time.Time{})
		if err == nil && nw == nil {
			return nil
		}
		if err == nil {
			_, err = w.readOne(nw, s)
		}
		if err != nil { // the rest is lost too, beside what a lost connection counted
			for _, nw := range w.wins {
				s.Lost += nw.load()
				for nw.load() > 0 {
					w.pop(nw)
				}
			}
			return err
		}
	}
}

// forgetUnsent drops nw's waiting commands that were never sent, keeping
// in order those sent before a redirection (entries swap, so that no
// command buffer is shared).
func (w *clusterWindow) forgetUnsent(nw *nodeWindow) {
	was, kept := nw.load(), 0
	for i := range nw.queued {
		if e := nw.at(nw.flying + i); !e.sent.IsZero() {
			k := nw.at(nw.flying + kept)
			*k, *e = *e, *k
			kept++
		}
	}
	nw.queued = kept
	w.count(nw, was)
}

// Close closes the worker's connections and its pollset.
func (w *clusterWindow) Close() error {
	if w.set != nil {
		w.unhook()
		_ = w.set.Close()
		w.set = nil
	}
	return w.Links.Close()
}
