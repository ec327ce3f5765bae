package testenv

import (
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// ServeEach listens on a loopback port and runs handle, in a goroutine of
// its own, for each connection it accepts (which handle closes).
func ServeEach(t *testing.T, handle func(nc net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(nc)
		}
	}()
	return ln.Addr().String()
}
