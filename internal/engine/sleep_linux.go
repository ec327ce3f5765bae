package engine

import (
	"syscall"
	"time"
)

// shortSleep sleeps d (at most a few milliseconds) with microsecond
// precision: nanosleep blocks this thread, where Go's timers would wake up
// to a millisecond late on an idle machine and skew an open-loop schedule.
func shortSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
