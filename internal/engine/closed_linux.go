package engine

import (
	"time"

	"golang.org/x/sys/unix"
)

// closedGroups says whether a closed loop's workers run in groups: on
// Linux they do whenever every one is a Poller with a descriptor (checked
// by startGroups), whatever their number: from 1 to 1,000 connections a
// group cost no more client CPU than a goroutine each, and less memory
// (docs/redis.md gives the figures and their command).
func (r *runState) closedGroups() bool { return !r.cfg.open() }

// runClosed is a closed loop's group: every member sends its first
// request, then each sends its next as soon as its reply is read; the
// group sleeps on its epoll set until a reply comes (or the timer, which
// lets it see the run's end).
func (g *group) runClosed() {
	for _, m := range g.members {
		g.sendNow(m)
	}
	g.armIn(collectAfter)
	for g.live > 0 {
		if g.ending() {
			return
		}
		g.werr = nil
		if g.raw.Read(g.wait) != nil || g.werr != nil {
			g.windDown(true)
			return
		}
		for i := 0; i < g.nev; i++ {
			tag := int(g.events[i].Fd)
			if tag == timerTag {
				g.armIn(collectAfter)
				continue
			}
			if m := g.members[tag]; !m.gone && m.l.pending {
				m.watched = false
				g.settle(m)
			}
		}
		g.nev = 0
		g.housekeep()
	}
}

// armIn sets the group's timer to expire d from now.
func (g *group) armIn(d time.Duration) {
	g.spec.Value = unix.NsecToTimespec(g.r.beginMono + int64(time.Since(g.r.begin)+d))
	g.arm(&g.spec)
}

// sendNow claims, prepares and sends a member's next request, or ends it.
func (g *group) sendNow(m *member) {
	l, r := m.l, g.r
	if r.ctx.Err() != nil || r.finishing.Load() || !l.claim() {
		g.retire(m)
		return
	}
	l.w.Prepare()
	if !m.p.Deferrable() || !m.registered && !g.register(m) {
		g.eject(m, l.exec)
		return
	}
	l.st = Step{}
	t0 := r.now()
	if err := m.p.Start(&l.st); err != nil {
		g.eject(m, func() bool { return l.failed(err, time.Now()) })
		return
	}
	l.t0, l.pending, m.watched = t0, true, true
}

// register adds a member's descriptor to the epoll set for good, edge
// triggered: each arrival of data wakes the group once.
func (g *group) register(m *member) bool {
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLET, Fd: m.tag}
	if unix.EpollCtl(g.ep, unix.EPOLL_CTL_ADD, m.fd, &ev) != nil {
		return false
	}
	m.registered = true
	return true
}
