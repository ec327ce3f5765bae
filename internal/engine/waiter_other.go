//go:build !linux

package engine

// waiter is Linux's; elsewhere a Streamer waits with a read deadline.
type waiter struct{}

func newWaiter() *waiter { return nil }

func (w *waiter) close() {}

func (w *waiter) until(int, int64) (bool, error) { return false, nil }

func (w *waiter) forget() {}

func (w *waiter) pending(int64) bool { return false }
