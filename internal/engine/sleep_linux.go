package engine

import (
	"runtime"
	"syscall"
	"time"
)

// shortSleep sleeps d (at most a few milliseconds) with microsecond
// precision: nanosleep blocks this thread, where Go's timers would wake up
// to a millisecond late on an idle machine and skew an open-loop schedule.
// With a single P the blocked thread would hold it and starve the other
// workers, so there Go's timer is used and its lateness is reported.
func shortSleep(d time.Duration) {
	if runtime.GOMAXPROCS(0) < 2 {
		time.Sleep(d)
		return
	}
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil)
}
