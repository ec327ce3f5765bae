//go:build !linux

package pollset

import (
	"errors"
	"time"
)

// Supported says that sets work on this system.
const Supported = false

// Interrupted is the tag Ready and Wait report once Interrupt was called.
const Interrupted int32 = -1

// Set is an epoll set; elsewhere than Linux New refuses to make one.
type Set struct{}

// New refuses: sets need Linux's epoll.
func New(int) (*Set, error) { return nil, errors.New("pollset: needs Linux") }

// Add is not reached: New refuses.
func (*Set) Add(int, int32) error { return errors.New("pollset: needs Linux") }

// Remove is not reached: New refuses.
func (*Set) Remove(int) error { return errors.New("pollset: needs Linux") }

// Ready is not reached: New refuses.
func (*Set) Ready() ([]int32, error) { return nil, errors.New("pollset: needs Linux") }

// Wait is not reached: New refuses.
func (*Set) Wait(time.Time) ([]int32, error) { return nil, errors.New("pollset: needs Linux") }

// Interrupt is not reached: New refuses.
func (*Set) Interrupt() {}

// Close is not reached: New refuses.
func (*Set) Close() error { return nil }
