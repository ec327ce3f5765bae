//go:build unix

package events

import (
	"context"
	"fmt"
	"os/exec"
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

// restart kills the server and starts it again as the actor says, in
// its folder, as a session of its own; done when it answers.
func restart(ctx context.Context, a Actor, pid int, issued func()) Outcome {
	argv, dir, err := a.CommandLine(ctx)
	if err != nil {
		issued()
		return Outcome{Err: err}
	}
	if o := signal(ctx, pid, "kill", issued); o.Err != nil {
		return o
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return Outcome{Err: fmt.Errorf("start %s again: %w", argv[0], err)}
	}
	go func() { _ = cmd.Wait() }() // reaped whenever it ends
	o := Outcome{Reply: fmt.Sprintf("killed %d, started again as %d", pid, cmd.Process.Pid),
		Signals: map[string]string{"new_pid": fmt.Sprint(cmd.Process.Pid)}}
	if err := a.Ready(ctx); err != nil {
		o.Err = err
		return o
	}
	o.Completed = time.Now()
	return o
}
