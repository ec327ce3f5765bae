package redis

import (
	"context"
	"fmt"

	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
)

// UnsupportedError says that the target does not know a command a
// workload needs: it is not a Tair instance with that module.
type UnsupportedError struct {
	Addr    string
	Command string
	Module  string
}

// Error names the command, the module and the way out.
func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s does not know %s: it is not a Tair instance with the %s module (tairbench's embedded server has it)",
		e.Addr, e.Command, e.Module)
}

// RequireCommands checks, with COMMAND INFO, that t knows every command in
// names (in order), and returns an *UnsupportedError for the first it does
// not. A target that cannot answer COMMAND INFO (a proxy may refuse it) is
// not judged: the run will tell.
func RequireCommands(ctx context.Context, t endpoint.Target, module string, names ...string) error {
	c, err := transport.NewClient(ctx, t, 1)
	if err != nil {
		return err
	}
	defer c.Close()
	args := []any{"COMMAND", "INFO"}
	for _, n := range names {
		args = append(args, n)
	}
	infos, err := c.Do(ctx, args...).Slice()
	if err != nil {
		if transport.IsReplyErr(err) {
			return nil
		}
		return fmt.Errorf("cannot reach %s: %w", t.Addr, err)
	}
	for i, info := range infos {
		if info == nil && i < len(names) {
			return &UnsupportedError{Addr: t.Addr, Command: names[i], Module: module}
		}
	}
	return nil
}
