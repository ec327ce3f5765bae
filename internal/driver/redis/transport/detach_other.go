//go:build !linux

package transport

import "context"

// Detach is Linux's (the send grid's groups run only there).
func (c *Conn) Detach(context.Context) (int, bool) { return -1, false }
