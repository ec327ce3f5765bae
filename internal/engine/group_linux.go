package engine

import (
	"math"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A group runs a share of the send grid's workers in one goroutine (one
// group per 50,000 requests/s, at most one per core): it sleeps once per
// tick (a timerfd in an epoll set of its own, the epoll set waited on
// through Go's poller), and at each tick reads the replies that came of
// each due worker's last request and sends its next, worker after worker,
// without a goroutine wake or a timer per request. A worker whose
// reply has not come by its tick is watched in the epoll set (one shot)
// and sends as soon as the reply comes, as a worker of its own would. A
// worker whose request is not deferrable, or whose connection failed,
// leaves the group for a goroutine of its own (its runDeferred), which
// waits, backs off and reconnects without holding the group's other
// workers up. A closed loop's workers run in groups too (closed_linux.go):
// no ticks, each sends its next request as soon as its reply is read.
type group struct {
	r *runState
	timedSet
	members []*member
	heap    memberHeap
	live    int
	wg      *sync.WaitGroup
	// The wait callback's state, kept here so that it does not allocate.
	events [64]unix.EpollEvent
	nev    int
	werr   error
	wait   func(fd uintptr) bool
	spec   unix.ItimerSpec
	// closed: a closed loop's group (closed_linux.go): each member sends
	// its next request as soon as its reply is read.
	closed bool
	// sweepAt is when housekeep looks for requests past the run's
	// RequestTimeout next, rollAt when it hands the members' recordings
	// on next (offsets from the run's begin).
	sweepAt, rollAt time.Duration
}

// member is one worker of a group.
type member struct {
	l  *loop
	p  Poller
	fd int
	// wake is when the group acts for it next (an offset from the run's
	// begin); due is its next request's intended start and tick that
	// request's tick.
	wake, due, tick time.Duration
	idx             int   // in the heap, -1: not
	tag             int32 // its index in the group, its events' tag
	// registered: in the epoll set; watched: armed there; ending: its loop
	// is over once the pending reply is read; gone: out of the group.
	registered, watched, ending, gone bool
}

// startGroups runs an open loop's deferred workers, or a closed loop's
// workers, in groups (one per core at most) when every one is a Poller
// with a descriptor; false (and nothing started) otherwise.
func (r *runState) startGroups(workers []Worker, seeds []uint64, wg *sync.WaitGroup) bool {
	closed := r.closedGroups()
	if !(r.deferred || closed) || !preciseSleep || r.beginMono == 0 {
		return false
	}
	polls := make([]Poller, len(workers))
	fds := make([]int, len(workers))
	for i, w := range workers {
		p, ok := w.(Poller)
		if !ok {
			return false
		}
		if fds[i], ok = p.PollFD(!closed); !ok {
			return false
		}
		polls[i] = p
	}
	n := groupsFor(r.cfg.Rate, len(workers))
	if closed {
		n = max(1, min(runtime.GOMAXPROCS(0), len(workers)))
	}
	groups := make([]*group, n)
	for i := range groups {
		g, err := newGroup(r, wg)
		if err != nil {
			for _, g := range groups[:i] {
				g.close()
			}
			return false
		}
		g.closed = closed
		groups[i] = g
	}
	for i, p := range polls {
		g := groups[i%n]
		m := &member{l: r.newLoop(i, p, seeds[i], false), p: p, fd: fds[i], idx: -1, tag: int32(len(g.members))}
		g.members = append(g.members, m)
	}
	for _, g := range groups {
		g.live = len(g.members)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer g.close()
			g.run()
		}()
	}
	return true
}

// groupRate is the request rate one group is given: a group on a core of
// its own keeps 100,000 requests/s of one command on schedule, and each
// group wakes once a tick whatever its share, so a run gets as few groups
// as keep each at or below this (and not more than there are cores).
const groupRate = 50_000

// groupsFor is the number of groups for rate requests/s over workers.
func groupsFor(rate float64, workers int) int {
	n := int(math.Ceil(rate / groupRate))
	return max(1, min(n, runtime.GOMAXPROCS(0), workers))
}

func newGroup(r *runState, wg *sync.WaitGroup) (*group, error) {
	ts, err := newTimedSet()
	if err != nil {
		return nil, err
	}
	g := &group{r: r, timedSet: ts, wg: wg}
	g.wait = g.waitFD
	return g, nil
}

// run is the group's loop: it schedules every member's first request,
// then sleeps until a member's tick or reply, and acts, until every member
// has left.
func (g *group) run() {
	if g.closed {
		g.runClosed()
		return
	}
	r := g.r
	for _, m := range g.members {
		g.next(m)
	}
	for g.live > 0 {
		if g.ending() {
			return
		}
		if !g.sleep() {
			g.windDown(true)
			return
		}
		for i := 0; i < g.nev; i++ {
			if tag := int(g.events[i].Fd); tag != timerTag {
				g.replyCame(g.members[tag])
			}
		}
		g.nev = 0
		g.housekeep()
		// The members due, a bounded round of them: a group behind its
		// schedule still reads the replies it watches (and sees the end).
		elapsed := time.Since(r.begin)
		for n := 4*len(g.members) + 64; n > 0 && len(g.heap) > 0 && g.heap[0].wake <= elapsed; n-- {
			g.act(g.heap.pop())
			elapsed = time.Since(r.begin)
		}
	}
}

// ending winds the group down once the run is ending (its members each
// end once their pending reply is read, at once when it was stopped):
// true when none is left.
func (g *group) ending() bool {
	r := g.r
	if r.ctx.Err() == nil && !r.finishing.Load() {
		return false
	}
	g.windDown(r.ctx.Err() != nil)
	return g.live == 0
}

// sleep arms the timer for the earliest member's wake (at most
// collectAfter away, so that the end of the run is seen) and waits for it
// or a watched reply; false when the wait failed.
func (g *group) sleep() bool {
	r := g.r
	at := time.Since(r.begin) + collectAfter
	if len(g.heap) > 0 {
		at = min(at, g.heap[0].wake)
	}
	g.spec.Value = unix.NsecToTimespec(r.beginMono + int64(at))
	if !g.arm(&g.spec) {
		return false
	}
	g.werr = nil
	return g.raw.Read(g.wait) == nil && g.werr == nil
}

// waitFD reads the epoll set's events (false when there are none yet:
// the poller waits).
func (g *group) waitFD(fd uintptr) bool {
	n, err := ready(fd, g.events[:])
	switch {
	case err != nil:
		g.werr = err
	case n == 0:
		return false
	}
	g.nev = n
	return true
}

// next claims and schedules a member's next request (or ends it).
func (g *group) next(m *member) {
	l, r := m.l, g.r
	if r.ctx.Err() != nil || r.finishing.Load() || !l.claim() {
		g.retire(m)
		return
	}
	k := uint64(l.sent)
	if _, stop := l.pacer.Pace(0, k); stop {
		g.retire(m) // its schedule is over; the others send theirs
		return
	}
	if l.pastEnd(l.pacer.Due(k)) {
		g.retire(m) // its tick is at or after the run's end
		return
	}
	l.held = true
	m.due = l.pacer.Due(k)
	m.tick = l.grid(m.due)
	m.wake = m.tick
	if l.pending {
		m.wake = min(m.wake, l.grid(l.t0.Sub(r.begin)+collectAfter))
	}
	g.heap.push(m)
}

// act is a member's wake: at its tick it goes on as settle says; before
// it (collecting a reply 20 ms after its send) a reply not come yet is
// left for the tick.
func (g *group) act(m *member) {
	if m.wake >= m.tick {
		g.settle(m)
		return
	}
	if g.collect(m) {
		g.proceed(m)
	} else if !m.gone {
		m.wake = m.tick
		g.heap.push(m)
	}
}

// replyCame is a watched member's reply arriving (or a part of it).
func (g *group) replyCame(m *member) {
	m.watched = false
	if !m.gone {
		g.settle(m)
	}
}

// settle reads a member's pending replies and goes on (proceed), or
// watches for them when they have not all come.
func (g *group) settle(m *member) {
	if g.collect(m) {
		g.proceed(m)
	} else if !m.gone {
		g.watch(m)
	}
}

// collect reads and records the member's pending replies if they have all
// come: true when it has none pending now; false when they have not come,
// or it left the group. A member that cannot tell (a reply larger than its
// read buffer) leaves the group: its read would hold the others up.
func (g *group) collect(m *member) bool {
	if !m.l.pending {
		return true
	}
	switch m.p.Ready() {
	case NotYet:
		return false
	case Unknown:
		l := m.l
		g.eject(m, func() bool { return l.finishPending(m.p) })
		return false
	}
	return g.finish(m)
}

// proceed is a member with nothing pending: its loop ends when it is
// ending, it sends when its tick has come, else it waits for the tick.
func (g *group) proceed(m *member) {
	switch {
	case m.ending:
		g.done(m)
	case g.closed:
		g.sendNow(m)
	case m.tick <= time.Since(g.r.begin):
		g.send(m)
	default:
		m.wake = m.tick
		g.heap.push(m)
	}
}

// send sends a member's request at (or after) its tick.
func (g *group) send(m *member) {
	l, r := m.l, g.r
	if r.ctx.Err() != nil || r.finishing.Load() {
		g.retire(m)
		return
	}
	l.sent++
	l.held = false
	l.intended = r.begin.Add(m.due)
	l.w.Prepare()
	now := r.now()
	l.noteLate(r.begin.Add(m.tick), now)
	if !m.p.Deferrable() {
		g.eject(m, l.exec)
		return
	}
	l.st = Step{}
	if err := m.p.Start(&l.st); err != nil {
		g.eject(m, func() bool { return l.failed(err, time.Now()) })
		return
	}
	l.t0, l.pending = now, true
	g.next(m)
}

// finish reads a pending request's replies (waiting for those not come)
// and records them; false when the member left the group.
func (g *group) finish(m *member) bool {
	l := m.l
	l.pending = false
	t1, err := m.p.Finish(g.r.ctx, &l.st)
	var at time.Time
	if g.closed {
		at = g.r.now() // timed as a worker of its own times it: when read
	} else {
		at = arrival(t1, time.Now()) // when it came, by the kernel's clock
	}
	if err != nil {
		g.eject(m, func() bool { return l.failed(err, at) })
		return false
	}
	if !l.replied(l.t0, at) {
		g.done(m)
		return false
	}
	return true
}

// watch arms the epoll set for a member's reply (one shot).
func (g *group) watch(m *member) {
	if g.closed { // registered for good, edge triggered
		m.watched = true
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: m.tag}
	op := unix.EPOLL_CTL_MOD
	if !m.registered {
		op = unix.EPOLL_CTL_ADD
	}
	if err := unix.EpollCtl(g.ep, op, m.fd, &ev); err != nil {
		if g.finish(m) { // cannot watch: read the reply the blocking way
			g.proceed(m)
		}
		return
	}
	m.registered, m.watched = true, true
}

// retire ends a member's loop once its pending request, if any, is read.
func (g *group) retire(m *member) {
	m.ending = true
	g.settle(m)
}

// windDown ends every member still in the group: at once, reading what is
// in flight the blocking way, when the run was stopped (its connections'
// reads then fail at once); else each once its pending reply came.
func (g *group) windDown(stopped bool) {
	for _, m := range g.members {
		if m.gone {
			continue
		}
		if m.idx >= 0 {
			g.heap.remove(m)
		}
		switch {
		case stopped && m.l.pending:
			m.ending = true
			if g.finish(m) {
				g.done(m)
			}
		case !m.watched:
			g.retire(m)
		default:
			m.ending = true
		}
	}
}

// sweepEvery is how often a group looks for requests past timeout: often
// enough that one is given up within a twentieth of it (and 50 ms) late,
// besides the group's wake (at most collectAfter apart).
func sweepEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/20, time.Millisecond), 50*time.Millisecond)
}

// housekeep, once a wake, gives up the requests past the run's
// RequestTimeout (a sweep at a time) and, once an interval has ended,
// hands its members' recordings of it to the aggregator, so that the
// interval's line has them even when a member waits on a reply across it.
func (g *group) housekeep() {
	r := g.r
	elapsed := time.Since(r.begin)
	if elapsed >= g.rollAt {
		now := r.begin.Add(elapsed)
		for _, m := range g.members {
			if !m.gone {
				m.l.rec.FlushIfDue(now)
			}
		}
		g.rollAt = r.agg.IntervalEnd(now).Sub(r.begin)
	}
	if timeout := r.cfg.RequestTimeout; timeout > 0 && elapsed >= g.sweepAt {
		g.sweepAt = elapsed + sweepEvery(timeout)
		g.expireLate(r.begin.Add(elapsed), timeout)
	}
}

// expireLate gives up the members' requests that have gone timeout
// without their replies by now (Poller.Expire), each member then going on
// in a goroutine of its own as after any failure.
func (g *group) expireLate(now time.Time, timeout time.Duration) {
	for _, m := range g.members {
		if m.gone || !m.l.pending || now.Sub(m.l.t0) < timeout {
			continue
		}
		l, p := m.l, m.p
		l.pending = false
		g.eject(m, func() bool { return l.failed(p.Expire(), now) }) // out of the epoll set first
	}
}

// leave takes a member out of the group.
func (g *group) leave(m *member) {
	if m.idx >= 0 {
		g.heap.remove(m)
	}
	if m.registered {
		_ = unix.EpollCtl(g.ep, unix.EPOLL_CTL_DEL, m.fd, nil)
		m.registered = false
	}
	m.gone = true
	g.live--
}

// done ends a member's loop as start's goroutine ends a worker's.
func (g *group) done(m *member) {
	g.leave(m)
	l := m.l
	g.r.loopDone(l.id)
	l.drain()
	l.close()
}

// eject hands a member to a goroutine of its own, which runs first (the
// step that made it leave: a blocking request, a failure's back-off) and
// then the worker's own deferred loop.
func (g *group) eject(m *member, first func() bool) {
	g.leave(m)
	l, r := m.l, g.r
	l.ownSleep()
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer l.close()
		if first() {
			l.run() // deferred in an open loop (r.deferred), else Exec
		}
		r.loopDone(l.id)
		l.drain()
	}()
}

// memberHeap orders members by wake.
type memberHeap []*member

func (h *memberHeap) push(m *member) {
	*h = append(*h, m)
	m.idx = len(*h) - 1
	h.up(m.idx)
}

func (h *memberHeap) pop() *member {
	m := (*h)[0]
	h.remove(m)
	return m
}

func (h *memberHeap) remove(m *member) {
	s := *h
	i, last := m.idx, len(s)-1
	if i != last {
		s[i] = s[last]
		s[i].idx = i
	}
	s[last] = nil
	*h = s[:last]
	m.idx = -1
	if i < last {
		h.down(i)
		h.up(i)
	}
}

func (h memberHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].wake <= h[i].wake {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h memberHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].wake < h[c].wake {
			c++
		}
		if h[i].wake <= h[c].wake {
			return
		}
		h.swap(i, c)
		i = c
	}
}

func (h memberHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
