//go:build !linux

package transport

import (
	"errors"
	"time"
)

// RxStamps says whether a connection can tell when its data arrived, and
// read without waiting: only on Linux, where engine groups poll.
const RxStamps = false

// stamper is Linux's; elsewhere it is never enabled.
type stamper struct{}

func enableStamps(uintptr) error { return errors.New("receive timestamps need Linux") }

func (s *stamper) recv(uintptr, []byte) (int, error) {
	return 0, errors.New("receive timestamps need Linux")
}

func (s *stamper) arrived() time.Time { return time.Time{} }

func (s *stamper) forget() {}
