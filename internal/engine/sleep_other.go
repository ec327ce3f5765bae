//go:build !linux

package engine

import "time"

// sleeper uses Go's timers outside Linux.
type sleeper struct{}

func newSleeper() *sleeper { return &sleeper{} }

func (s *sleeper) sleep(d time.Duration) { time.Sleep(d) }

func (s *sleeper) close() {}

func (s *sleeper) sleepUntil(int64) bool { return false }

func monoNow() int64 { return 0 }
