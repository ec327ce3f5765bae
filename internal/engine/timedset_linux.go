package engine

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tairbench/tairbench/internal/pollset"
)

// timerTag marks the timer's events in a timedSet (a group's members'
// are their index, a waiter's connection's its descriptor).
const timerTag = -1

// timedSet is an epoll set of the engine's own holding a timerfd, the set
// waited on through Go's poller: what a group and a waiter sleep on, with
// the descriptors they watch beside the timer.
type timedSet struct {
	ep, tfd int
	f       *os.File // the set, in Go's poller
	raw     syscall.RawConn
}

func newTimedSet() (timedSet, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return timedSet{ep: -1, tfd: -1}, err
	}
	s := timedSet{ep: ep, tfd: -1}
	if err = unix.SetNonblock(ep, true); err == nil {
		s.tfd, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	}
	if err == nil {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: timerTag}
		err = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, s.tfd, &ev)
	}
	if err == nil {
		s.f = os.NewFile(uintptr(ep), "epoll")
		s.raw, err = s.f.SyscallConn()
	}
	if err != nil {
		s.close()
	}
	return s, err
}

func (s *timedSet) close() {
	if s.tfd >= 0 {
		_ = unix.Close(s.tfd)
		s.tfd = -1
	}
	if s.f != nil {
		_ = s.f.Close()
		s.f = nil
	} else if s.ep >= 0 {
		_ = unix.Close(s.ep)
	}
	s.ep = -1
}

// arm sets the timer to expire at spec's absolute CLOCK_MONOTONIC time,
// with a raw system call (see ready); false when it failed.
func (s *timedSet) arm(spec *unix.ItimerSpec) bool {
	_, _, e := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(s.tfd), unix.TFD_TIMER_ABSTIME,
		uintptr(unsafe.Pointer(spec)), 0, 0, 0)
	return e == 0
}

// ready reads the set's ready events into evs without waiting (the set is
// fd, inside its poller callback): how many, 0 when none yet. The system
// calls of a set's waits never block.
func ready(fd uintptr, evs []unix.EpollEvent) (int, error) { return pollset.Poll(fd, evs) }
