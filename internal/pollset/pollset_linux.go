// Package pollset is an epoll set waited on through Go's poller: one
// goroutine sleeps on many descriptors at once, without a thread of its
// own, and learns which are ready.
package pollset

import (
	"errors"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Supported says that sets work on this system.
const Supported = true

// Interrupted is the tag Ready and Wait report once Interrupt was called.
const Interrupted int32 = -1

// timerTag marks the wait's timer in the set; it is never reported.
const timerTag int32 = -2

// Set is an epoll set of descriptors, each watched for data to read
// (level-triggered) under a tag of the caller's, of an eventfd that
// Interrupt makes ready for good, and of a timerfd that ends a Wait at its
// deadline to the microsecond (Go's own timers can be a millisecond late).
type Set struct {
	f   *os.File // the set, in Go's poller
	raw syscall.RawConn
	ep  int
	efd int
	tfd int
	// mu orders Interrupt (from another goroutine) against Close, so
	// that an interrupt never writes to a descriptor number reused since.
	mu     sync.Mutex
	closed bool
	// spec is the timer's setting, kept here so that it does not allocate.
	spec unix.ItimerSpec
	// The wait callback's state, kept here so that it does not allocate.
	evs  []unix.EpollEvent
	out  []int32
	n    int
	werr error
	wait func(fd uintptr) bool
}

// New returns an empty set that reports up to size events a wait.
func New(size int) (*Set, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		_ = unix.Close(ep)
		return nil, err
	}
	n := max(size, 1) + 1
	s := &Set{ep: ep, efd: -1, tfd: -1, f: os.NewFile(uintptr(ep), "epoll"), evs: make([]unix.EpollEvent, n+1), out: make([]int32, 0, n)}
	if s.raw, err = s.f.SyscallConn(); err == nil {
		s.efd, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	}
	if err == nil {
		err = s.Add(s.efd, Interrupted)
	}
	if err == nil {
		s.tfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	}
	if err == nil {
		err = s.Add(s.tfd, timerTag)
	}
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	s.wait = s.ready
	return s, nil
}

// Interrupt makes every wait from now on end at once, reporting
// Interrupted (safe from another goroutine: a context's AfterFunc).
func (s *Set) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		one := [8]byte{1}
		_, _ = unix.Write(s.efd, one[:])
	}
}

// Add watches fd for data to read under tag; a descriptor already in the
// set (its number reused by a new connection) takes the new tag.
func (s *Set) Add(fd int, tag int32) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: tag}
	err := unix.EpollCtl(s.ep, unix.EPOLL_CTL_ADD, fd, &ev)
	if errors.Is(err, unix.EEXIST) {
		err = unix.EpollCtl(s.ep, unix.EPOLL_CTL_MOD, fd, &ev)
	}
	return err
}

// Remove stops watching fd (a descriptor closed leaves the set by itself).
func (s *Set) Remove(fd int) error { return unix.EpollCtl(s.ep, unix.EPOLL_CTL_DEL, fd, nil) }

// Ready returns the tags of the descriptors with data to read, without
// waiting (none: nil). The slice is reused by the next call.
func (s *Set) Ready() ([]int32, error) {
	if err := s.poll(); err != nil {
		return nil, err
	}
	return s.tags(), nil
}

// Wait returns the tags of the descriptors with data to read, waiting for
// one until deadline (none by then: nil, and no error).
func (s *Set) Wait(deadline time.Time) ([]int32, error) {
	d := time.Until(deadline)
	if d <= 0 {
		return s.Ready()
	}
	s.spec.Value = unix.NsecToTimespec(int64(d))
	if _, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(s.tfd), 0, uintptr(unsafe.Pointer(&s.spec)), 0, 0, 0); e != 0 {
		return nil, e
	}
	s.n, s.werr = 0, nil
	if err := s.raw.Read(s.wait); err != nil {
		return nil, err
	}
	if s.werr != nil {
		return nil, s.werr
	}
	return s.tags(), nil
}

// ready is Wait's callback: true once the set had events (or failed).
func (s *Set) ready(uintptr) bool {
	s.werr = s.poll()
	return s.werr != nil || s.n > 0
}

// poll reads the ready events without waiting.
func (s *Set) poll() error {
	n, err := Poll(uintptr(s.ep), s.evs)
	s.n = n
	return err
}

// Poll reads epoll set ep's ready events into evs without waiting: how
// many, 0 when none. The system call is made raw: one made the usual way
// wakes the runtime's monitor thread from its sleep, which costs a pair of
// context switches a wake.
func Poll(ep uintptr, evs []unix.EpollEvent) (int, error) {
	for {
		n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, ep, uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return 0, e
		}
		return int(n), nil
	}
}

// tags lists the last poll's tags (an event's Fd field holds its tag) in
// a slice the next call reuses; an expired timer is read (so that it is
// ready no more) and left out.
func (s *Set) tags() []int32 {
	if s.n == 0 {
		return nil
	}
	s.out = s.out[:0]
	for i := range s.n {
		if tag := s.evs[i].Fd; tag != timerTag {
			s.out = append(s.out, tag)
			continue
		}
		var expirations [8]byte
		_, _, _ = unix.RawSyscall(unix.SYS_READ, uintptr(s.tfd), uintptr(unsafe.Pointer(&expirations[0])), 8)
	}
	if len(s.out) == 0 {
		return nil
	}
	return s.out
}

// Close releases the set (the descriptors in it stay open).
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, fd := range []*int{&s.efd, &s.tfd} {
		if *fd >= 0 {
			_ = unix.Close(*fd)
			*fd = -1
		}
	}
	return s.f.Close()
}
