package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// Monitor sends MONITOR to t and hands each line of its feed to line
// until ctx ends (nil), line returns an error (that error) or the
// connection fails.
func Monitor(ctx context.Context, t endpoint.Target, line func(string) error) error {
	c, err := transport.Dial(ctx, t)
	if err != nil {
		return err
	}
	defer c.Close()
	// The end of ctx ends the feed's wait (a deadline, not a Close: the
	// connection is not closed from two goroutines).
	stop := context.AfterFunc(ctx, func() { _ = c.NetConn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	ok, err := c.DoString("MONITOR")
	switch {
	case err != nil:
		return fmt.Errorf("%s: MONITOR: %w", t.Addr, err)
	case ok != "OK":
		return fmt.Errorf("%s: MONITOR replied %q", t.Addr, ok)
	}
	for {
		s, err := c.Feed()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("%s: MONITOR: %w", t.Addr, err)
		}
		if err := line(s); err != nil {
			return err
		}
	}
}
