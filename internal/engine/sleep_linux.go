package engine

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// sleeper sleeps the last milliseconds before a scheduled send with
// microsecond precision. Go's timers wake up to a millisecond late on an
// idle machine; a timerfd read through Go's network poller wakes when the
// kernel timer expires, and the goroutine waits parked (no thread or P is
// held, unlike nanosleep).
type sleeper struct {
	f    *os.File
	fd   int
	spec unix.ItimerSpec
	buf  [8]byte
}

func newSleeper() *sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &sleeper{fd: -1}
	}
	return &sleeper{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}
}

// sleep waits d (at most a few milliseconds).
func (s *sleeper) sleep(d time.Duration) {
	if s.f == nil || d <= 0 {
		time.Sleep(d)
		return
	}
	s.spec.Value = unix.NsecToTimespec(int64(d))
	if unix.TimerfdSettime(s.fd, 0, &s.spec, nil) != nil {
		time.Sleep(d)
		return
	}
	if _, err := s.f.Read(s.buf[:]); err != nil {
		time.Sleep(d)
	}
}

func (s *sleeper) close() {
	if s.f != nil {
		_ = s.f.Close()
	}
}
