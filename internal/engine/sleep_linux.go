package engine

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper sleeps the last milliseconds before a scheduled send with
// microsecond precision. Go's timers wake up to a millisecond late on an
// idle machine; a timerfd read through Go's network poller wakes when the
// kernel timer expires, and the goroutine waits parked (no thread or P is
// held, unlike nanosleep). The timer is armed from inside the poller's
// read wait (RawConn.Read), after the poller's reset: the wait starts
// without a read that could only fail with EAGAIN, and an expiry that
// comes at once is not lost.
type sleeper struct {
	f   *os.File
	raw syscall.RawConn
	// The callback's state, kept here so that the callback (made once)
	// does not allocate.
	spec  unix.ItimerSpec
	flags int
	buf   [8]byte
	armed bool
	err   error
	wait  func(fd uintptr) bool
}

func newSleeper() *sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &sleeper{}
	}
	s := &sleeper{f: os.NewFile(uintptr(fd), "timerfd")}
	if s.raw, err = s.f.SyscallConn(); err != nil {
		_ = s.f.Close()
		return &sleeper{}
	}
	s.wait = s.waitFD
	return s
}

// waitFD arms the timer (false: wait for the poller), then reads its
// expiry (false on EAGAIN: wait again).
func (s *sleeper) waitFD(fd uintptr) bool {
	if !s.armed {
		s.armed = true
		if err := unix.TimerfdSettime(int(fd), s.flags, &s.spec, nil); err != nil {
			s.err = err
			return true
		}
		return false
	}
	for {
		_, err := unix.Read(int(fd), s.buf[:])
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		}
		s.err = err
		return true
	}
}

// sleep waits d (at most a few milliseconds).
func (s *sleeper) sleep(d time.Duration) {
	if s.raw == nil || d <= 0 {
		time.Sleep(d)
		return
	}
	until := time.Now().Add(d)
	s.spec.Value = unix.NsecToTimespec(int64(d))
	s.armed, s.err, s.flags = false, nil, 0
	if err := s.raw.Read(s.wait); err != nil || s.err != nil {
		time.Sleep(time.Until(until))
	}
}

func (s *sleeper) close() {
	if s.f != nil {
		_ = s.f.Close()
	}
}

// sleepUntil waits until mono on CLOCK_MONOTONIC (monoNow's clock): the
// timers of workers due on the same tick expire together, in one wake.
// False when the sleeper cannot (then the caller sleeps otherwise).
func (s *sleeper) sleepUntil(mono int64) bool {
	if s.raw == nil {
		return false
	}
	s.spec.Value = unix.NsecToTimespec(mono)
	s.armed, s.err, s.flags = false, nil, unix.TFD_TIMER_ABSTIME
	return s.raw.Read(s.wait) == nil && s.err == nil
}

// monoNow reads CLOCK_MONOTONIC in nanoseconds (0 if it cannot).
func monoNow() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
