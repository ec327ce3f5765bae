//go:build unix

package events

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"github.com/tairbench/tairbench/internal/topology"
)

// alive says whether a process of that PID runs (not a zombie).
func alive(pid int) bool { return topology.Alive(pid) }

// signals are the process events' signals.
var signals = map[string]syscall.Signal{"stop": syscall.SIGSTOP, "cont": syscall.SIGCONT, "kill": syscall.SIGKILL}

// signal sends a process event's signal: a kill completes when the
// process is gone, a stop or a cont when the signal is delivered.
func signal(ctx context.Context, pid int, action string, issued func()) Outcome {
	issued()
	if err := syscall.Kill(pid, signals[action]); err != nil {
		return Outcome{Err: fmt.Errorf("signal %s to process %d: %w", signals[action], pid, err)}
	}
	o := Outcome{Reply: fmt.Sprintf("%s sent to process %d", signals[action], pid)}
	if action != "kill" {
		o.Completed = time.Now()
		return o
	}
	for alive(pid) {
		select {
		case <-ctx.Done():
			o.Err = ErrNotSeen
			return o
		case <-time.After(5 * time.Millisecond):
		}
	}
	o.Completed = time.Now()
	return o
}
