//go:build !linux

package transport

import (
	"context"
	"net"
	"time"
)

// dialRaw is Linux's (its groups take descriptors outside Go's poller):
// elsewhere Dial connects through net.Dialer.
func dialRaw(context.Context, string, string, time.Duration) (net.Conn, error) {
	return nil, errNoRawDial
}

func loggedIn(net.Conn) {}
