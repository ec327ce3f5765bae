package engine

import (
	"errors"
	"fmt"
	"time"
)

// Mode names how a run's workers send their requests: the executor that
// runs each worker's loop. Each has its own file.
type Mode string

const (
	// ModeAuto lets the engine choose for each worker: a closed loop
	// (window, when the worker keeps commands in flight) without a
	// schedule; with one, deferred when every worker is a Deferrer and
	// the send grid or the groups take them, else routed, stream or open
	// by what the worker can do.
	ModeAuto Mode = ""
	// ModeClosed sends each request when the last one's replies came
	// (closed.go; on Linux, Pollers in groups: closed_linux.go).
	ModeClosed Mode = "closed"
	// ModeWindow is a closed loop whose worker keeps commands in flight
	// between requests (a Drainer); what is in flight at the end is
	// drained (window.go).
	ModeWindow Mode = "window"
	// ModeOpen sends each request at its intended start and waits for its
	// replies (open.go).
	ModeOpen Mode = "open"
	// ModeDeferred sends each request at its intended start and reads its
	// replies at the next wake, timed by the kernel (deferred.go; on
	// Linux, in groups: group_linux.go).
	ModeDeferred Mode = "deferred"
	// ModeStream sends each command at its own intended start while a
	// window of earlier ones awaits replies (stream.go).
	ModeStream Mode = "stream"
	// ModeRouted streams over several connections, a window each, replies
	// read as they come (routed.go).
	ModeRouted Mode = "routed"
)

// Modes lists the explicit modes.
var Modes = []Mode{ModeClosed, ModeWindow, ModeOpen, ModeDeferred, ModeStream, ModeRouted}

// Open says whether the mode follows a schedule (a Pacer).
func (m Mode) Open() bool {
	switch m {
	case ModeOpen, ModeDeferred, ModeStream, ModeRouted:
		return true
	}
	return false
}

// PacerSource gives worker id of workers its share of a run's schedule,
// ending at end (0: no end): a caller's own schedule in place of Rate's.
// It is called once a worker, from the workers' goroutines, concurrently.
type PacerSource func(id, workers int, seed uint64, end time.Duration) Pacer

// open says whether the run follows a schedule.
func (cfg *Config) open() bool { return cfg.Rate > 0 || cfg.Pacers != nil }

// pacer is worker id's schedule: the caller's, or Rate's.
func (cfg *Config) pacer(id, workers int, seed uint64, end time.Duration) Pacer {
	if cfg.Pacers != nil {
		return cfg.Pacers(id, workers, seed, end)
	}
	return NewPacer(cfg.Rate, workers, id, cfg.Arrivals == ArrivalsPoisson, seed, end)
}

// checkMode refuses a configuration whose explicit mode does not fit it.
func (cfg *Config) checkMode() error {
	if cfg.Mode == ModeAuto {
		return nil
	}
	known := false
	for _, m := range Modes {
		known = known || m == cfg.Mode
	}
	switch {
	case !known:
		return fmt.Errorf("engine: no mode %q (the modes: %v)", cfg.Mode, Modes)
	case cfg.Mode.Open() && !cfg.open():
		return fmt.Errorf("engine: the %s mode needs a schedule (a rate or a pacer)", cfg.Mode)
	case !cfg.Mode.Open() && cfg.open():
		return fmt.Errorf("engine: the %s mode has no schedule, and this run has one", cfg.Mode)
	}
	return nil
}

// fits says why worker w cannot run in mode m (nil: it can).
func fits(m Mode, w Worker) error {
	_, window := w.(Drainer)
	_, stream := w.(Streamer)
	var ok bool
	switch m {
	case ModeClosed:
		if window {
			return fmt.Errorf("this worker (%T) keeps commands in flight between requests: its closed loop is the window mode", w)
		}
		ok = true
	case ModeWindow:
		ok = window
	case ModeOpen:
		// A window pipeline that cannot send each command at its own
		// intended start would send its commands in bursts.
		if window && !stream {
			return errors.New("this window pipeline cannot send each command at its own intended start, so it cannot run an open loop: run it closed-loop")
		}
		if window {
			return fmt.Errorf("this window pipeline (%T) runs an open loop in the stream mode", w)
		}
		ok = true
	case ModeDeferred:
		_, ok = w.(Deferrer)
	case ModeStream:
		ok = stream
	case ModeRouted:
		_, ok = w.(RoutedStreamer)
	}
	if !ok {
		return fmt.Errorf("this worker (%T) cannot run in the %s mode", w, m)
	}
	return nil
}

// autoMode is the mode the engine chooses for worker w: deferred says the
// run's workers are all Deferrers that the grid or the groups take.
func autoMode(open, deferred bool, w Worker) Mode {
	if !open {
		if _, ok := w.(Drainer); ok {
			return ModeWindow
		}
		return ModeClosed
	}
	if deferred {
		return ModeDeferred
	}
	if _, ok := w.(RoutedStreamer); ok {
		return ModeRouted
	}
	if _, ok := w.(Streamer); ok {
		return ModeStream
	}
	return ModeOpen
}

// modeOf is the mode worker w runs in: the configuration's, or the
// engine's choice. A deferred mode that neither the grid nor the groups
// took falls back to what the worker can do on its own: it would wait
// for each reply all the same.
func (r *runState) modeOf(w Worker) Mode {
	m := r.cfg.Mode
	if m == ModeAuto || m == ModeDeferred && !r.deferred {
		return autoMode(r.cfg.open(), r.deferred, w)
	}
	return m
}
