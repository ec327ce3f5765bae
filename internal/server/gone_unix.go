//go:build unix

package server

import (
	"syscall"
)

// gone says, without waiting or reading, whether the client closed its
// side of the connection: a peek at the socket finds its end (a request
// it sent meanwhile, or nothing yet, means it is still there).
func (c *conn) gone() bool {
	sc, ok := c.nc.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var buf [1]byte
	closed := false
	_ = raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && err == nil || err == syscall.ECONNRESET
		return true
	})
	return closed
}
