package events

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Actor carries events out on a run's target: a driver's.
type Actor interface {
	// Check refuses, before anything is sent, an event the target cannot
	// go through (a failover with no replica), with the reason.
	Check(ctx context.Context, e Event) error
	// Do issues e (not a Process or exec event) and returns when the
	// target says it completed, or ctx ends. It calls issued as it sends.
	Do(ctx context.Context, e Event, issued func()) Outcome
	// Process is the target server's process ID, when it runs on this
	// machine (the events that signal it need one).
	Process(ctx context.Context) (int, error)
	// Ready returns once the target answers (a restarted server that has
	// loaded its data), or ctx ends.
	Ready(ctx context.Context) error
	// CommandLine is how to start the target's server again as it runs
	// now (its program and a configuration of its settings), and the
	// folder to start it in.
	CommandLine(ctx context.Context) (argv []string, dir string, err error)
}

// Outcome is how an event went.
type Outcome struct {
	// Completed is when the target said it was done (zero: not seen).
	Completed time.Time
	// Reply is the answer; Err says why the event failed.
	Reply string
	Err   error
	// Signals are the server's own figures about the event.
	Signals map[string]string
}

// Record is an event as it ran.
type Record struct {
	Event
	// Issued is when it was sent (zero: never, the run ended first).
	Issued time.Time
	Outcome
}

// Runner issues a timeline's events at their times.
type Runner struct {
	wg      sync.WaitGroup
	cancel  context.CancelFunc
	records []Record
	stopped chan struct{}
}

// Check refuses, before the run, any event of the timeline its target
// cannot go through: the actor's checks, a process that is not on this
// machine, an exec whose program cannot be found.
func Check(ctx context.Context, a Actor, timeline []Event) error {
	for _, e := range timeline {
		if e.Cycle > 1 {
			continue
		}
		var err error
		switch {
		case e.Action == "exec":
			err = checkExec(e.Args[0])
		case isProcess(e.Action):
			var pid int
			if pid, err = a.Process(ctx); err == nil && !alive(pid) {
				err = fmt.Errorf("the server's process %d is not one this machine runs", pid)
			}
			if err == nil && e.Action == "restart" {
				_, _, err = a.CommandLine(ctx)
			}
		default:
			err = a.Check(ctx, e)
		}
		if err != nil {
			return fmt.Errorf("event %s at %s: %w", e.Text, e.At, err)
		}
	}
	return nil
}

// checkExec refuses a command the shell cannot parse or whose program is
// not found.
func checkExec(command string) error {
	if out, err := exec.Command("sh", "-n", "-c", command).CombinedOutput(); err != nil {
		return fmt.Errorf("exec %q does not parse: %s", command, strings.TrimSpace(string(out)))
	}
	words, err := split(command)
	if err != nil || len(words) == 0 {
		return fmt.Errorf("exec %q: no program", command)
	}
	if _, err := exec.LookPath(words[0]); err != nil {
		return fmt.Errorf("exec %q cannot start: %w", command, err)
	}
	return nil
}

func isProcess(name string) bool {
	for _, a := range Actions {
		if a.Name == name {
			return a.Process
		}
	}
	return false
}

// Start issues each event of timeline at start+At, each on a goroutine of
// its own so that a long one (a fork's save) does not hold the next.
func Start(ctx context.Context, a Actor, timeline []Event, start time.Time) *Runner {
	ctx, cancel := context.WithCancel(ctx)
	r := &Runner{cancel: cancel, records: make([]Record, len(timeline)), stopped: make(chan struct{})}
	for i, e := range timeline {
		r.records[i].Event = e
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			t := time.NewTimer(time.Until(start.Add(e.At)))
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.stopped:
				return
			case <-ctx.Done():
				return
			}
			rec := &r.records[i]
			issued := func() { rec.Issued = time.Now() }
			rec.Outcome = run(ctx, a, e, issued)
			if rec.Issued.IsZero() {
				issued()
			}
		}()
	}
	return r
}

// run carries out one event.
func run(ctx context.Context, a Actor, e Event, issued func()) Outcome {
	switch {
	case e.Action == "exec":
		issued()
		return execute(ctx, e.Args[0])
	case isProcess(e.Action):
		pid, err := a.Process(ctx)
		if err != nil {
			issued()
			return Outcome{Err: err}
		}
		if e.Action == "restart" {
			return restart(ctx, a, pid, issued)
		}
		return signal(ctx, pid, e.Action, issued)
	default:
		return a.Do(ctx, e, issued)
	}
}

// execute runs a shell command; it completes when the command exits.
func execute(ctx context.Context, command string) Outcome {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	o := Outcome{Reply: lastLine(out.String())}
	if err != nil {
		o.Err = fmt.Errorf("%s: %w", command, err)
		return o
	}
	o.Completed = time.Now()
	return o
}

// lastLine is what a command said last, cut to 200 bytes.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// Stop ends the events still waiting for their time, gives those running
// until grace to complete, and returns every record in timeline order.
func (r *Runner) Stop(grace time.Duration) []Record {
	close(r.stopped)
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		r.cancel()
		<-done
	}
	r.cancel()
	return r.records
}

// ErrNotSeen is the error of an event whose completion the run did not
// see: it is scored all the same, to the run's end.
var ErrNotSeen = errors.New("its completion was not seen before the run ended")
