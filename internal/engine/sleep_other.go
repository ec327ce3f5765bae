//go:build !linux

package engine

import "time"

// shortSleep sleeps d; outside Linux it uses Go's timers.
func shortSleep(d time.Duration) { time.Sleep(d) }
