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
	spec unix.ItimerSpec
	evs  [2]unix.EpollEvent
	ev   unix.EpollEvent
	tbuf [8]byte
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
	w := &waiter{timedSet: ts}
	w.wait = w.waitFD
	return w
}

func (w *waiter) close() {
	if w != nil {
		w.timedSet.close()
	}
}

// until waits until the descriptor fd has data (true) or mono, on
// CLOCK_MONOTONIC (monoNow's clock), has come (false). The descriptor is
// added to the set each time (a connection made again may have a new one;
// a closed one left the set by itself). Its system calls never block and
// are made raw (see ready).
func (w *waiter) until(fd int, mono int64) (bool, error) {
	w.ev = unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if _, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(w.ep), unix.EPOLL_CTL_ADD, uintptr(fd),
		uintptr(unsafe.Pointer(&w.ev)), 0, 0); e != 0 && e != unix.EEXIST {
		return false, e
	}
	w.spec.Value = unix.NsecToTimespec(mono)
	if !w.arm(&w.spec) {
		return false, errors.New("timerfd_settime failed")
	}
	w.readable, w.err = false, nil
	if err := w.raw.Read(w.wait); err != nil {
		return false, err
	}
	return w.readable, w.err
}

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
		} else {
			w.readable = true
		}
	}
	return true
}
