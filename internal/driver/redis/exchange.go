package redis

import (
	"context"
	"errors"
	"fmt"

	goredis "github.com/redis/go-redis/v9"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// Answer is one command's reply as text, for comparing two servers'.
type Answer struct {
	Text string
	// Err is set for an error reply (Text is its message).
	Err bool
}

// exchangeBatch is how many commands Exchange pipelines a round trip.
const exchangeBatch = 512

// Exchange sends the commands to t in order on one connection, pipelined,
// and returns each reply as text: an integer's digits, a string as it is,
// "(nil)" for a null, an array's elements in brackets.
func Exchange(ctx context.Context, t endpoint.Target, cmds [][]string) ([]Answer, error) {
	c, err := transport.NewClient(ctx, t, 1)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	out := make([]Answer, 0, len(cmds))
	for start := 0; start < len(cmds); start += exchangeBatch {
		pipe := c.Pipeline()
		var sent []*goredis.Cmd
		for _, cmd := range cmds[start:min(start+exchangeBatch, len(cmds))] {
			args := make([]any, len(cmd))
			for i, a := range cmd {
				args[i] = a
			}
			sent = append(sent, pipe.Do(ctx, args...))
		}
		_, _ = pipe.Exec(ctx) // each command's own error is read below
		for _, cmd := range sent {
			v, err := cmd.Result()
			var re goredis.Error
			switch {
			case errors.Is(err, goredis.Nil):
				out = append(out, Answer{Text: "(nil)"})
			case errors.As(err, &re):
				out = append(out, Answer{Text: err.Error(), Err: true})
			case err != nil:
				return out, fmt.Errorf("%s: %w", t.Addr, err)
			default:
				out = append(out, Answer{Text: fmt.Sprint(v)})
			}
		}
	}
	return out, nil
}

// MemoryUsage returns MEMORY USAGE of each key on t (0 for a missing key).
func MemoryUsage(ctx context.Context, t endpoint.Target, keys []string) ([]int64, error) {
	cmds := make([][]string, len(keys))
	for i, k := range keys {
		cmds[i] = []string{"MEMORY", "USAGE", k}
	}
	ans, err := Exchange(ctx, t, cmds)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(keys))
	for i, a := range ans {
		if a.Err {
			return nil, fmt.Errorf("%s: MEMORY USAGE: %s", t.Addr, a.Text)
		}
		fmt.Sscan(a.Text, &out[i])
	}
	return out, nil
}
