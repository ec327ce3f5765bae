package engine

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waiter waits for a connection to have data or for a time to the
// microsecond, whichever comes first: an epoll set of its own holding the
// connection's descriptor (level-triggered) and a timerfd, the set waited
// on through Go's poller. A read deadline would do the same at the
// precision of Go's timers, which wake up to a millisecond late; a window's
// next command would go that late while its replies are outstanding.
type waiter struct {
	timedSet
	// fd is the descriptor in the set (-1: none); armed is the time the
	// timer is armed for, until its expiry is read (0: none).
	fd    int
	armed int64
	spec  unix.ItimerSpec
	evs   [2]unix.EpollEvent
	ev    unix.EpollEvent
	tbuf  [8]byte
	// The callback's results, kept here so that it (made once) does not
	// allocate.
	readable bool
	err      error
	wait     func(fd uintptr) bool
}

// newWaiter returns nil when the system refuses one (the caller then
// waits with a read deadline).
func newWaiter() *waiter {
	ts, err := newTimedSet()
	if err != nil {
		return nil
	}
	w := &waiter{timedSet: ts, fd: -1}
	w.wait = w.waitFD
	return w
}

func (w *waiter) close() {
	if w != nil {
		w.timedSet.close()
	}
}

// until waits until the descriptor fd has data (true) or mono, on
// CLOCK_MONOTONIC (monoNow's clock), has come (false). A timer still armed
// for mono is not armed again: a wait that a reply ended early goes on to
// the same start without a second expiry to wake the process for nothing.
// Its system calls never block and are made raw (see ready).
func (w *waiter) until(fd int, mono int64) (bool, error) {
	if fd != w.fd {
		w.ev = unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if _, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(w.ep), unix.EPOLL_CTL_ADD, uintptr(fd),
			uintptr(unsafe.Pointer(&w.ev)), 0, 0); e != 0 && e != unix.EEXIST {
			return false, e
		}
		w.fd = fd
	}
	if w.armed != mono {
		w.spec.Value = unix.NsecToTimespec(mono)
		if !w.arm(&w.spec) {
			return false, errors.New("timerfd_settime failed")
		}
		w.armed = mono
	}
	w.readable, w.err = false, nil
	if err := w.raw.Read(w.wait); err != nil {
		return false, err
	}
	return w.readable, w.err
}

// forget says the connection may have been made again: its descriptor,
// even under the same number, is added to the set anew (a closed one left
// the set by itself).
func (w *waiter) forget() { w.fd = -1 }

// waitFD reads the set's events (false when there are none yet: the
// poller waits); an expiry is read off the timerfd so that it does not
// wake the next wait.
func (w *waiter) waitFD(fd uintptr) bool {
	n, err := ready(fd, w.evs[:])
	switch {
	case err != nil:
		w.err = err
		return true
	case n == 0:
		return false
	}
	for _, ev := range w.evs[:n] {
		if ev.Fd == timerTag {
			_, _, _ = unix.RawSyscall(unix.SYS_READ, uintptr(w.tfd), uintptr(unsafe.Pointer(&w.tbuf[0])), uintptr(len(w.tbuf)))
			w.armed = 0
		} else {
			w.readable = true
		}
	}
	return true
}

// pending says the timer is armed for mono and has not expired yet.
func (w *waiter) pending(mono int64) bool { return w != nil && w.armed == mono }
