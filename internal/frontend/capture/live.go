package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	driver "github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/serverstat"
)

// Live is a capture of a running server through MONITOR.
type Live struct {
	Target   endpoint.Target
	Duration time.Duration
	// MaxOverhead stops the capture when MONITOR raises the server's CPU
	// time per command by more than this fraction (0.5: by half) two
	// seconds running; 0: no limit.
	MaxOverhead float64
}

// load is a server's rate of commands and of CPU over a span.
type load struct {
	ops, cores float64
}

// perCommand is the server's CPU seconds per command (0 when idle).
func (l load) perCommand() float64 {
	if l.ops < 1 {
		return 0
	}
	return l.cores / l.ops
}

// between is the load from reading a to reading b.
func between(a, b serverstat.Reading) (load, bool) {
	ca, ok1 := a.Get(serverstat.Commands)
	cb, ok2 := b.Get(serverstat.Commands)
	ua, ok3 := a.Get(serverstat.CPUSeconds)
	ub, ok4 := b.Get(serverstat.CPUSeconds)
	dt := b.At.Sub(a.At).Seconds()
	if !(ok1 && ok2 && ok3 && ok4) || dt <= 0 {
		return load{}, false
	}
	return load{ops: (cb - ca) / dt, cores: (ub - ua) / dt}, true
}

// watch reads the server's load each second while MONITOR runs: it
// keeps the sampler's own address for the feed to leave out, adds up
// the load, and cancels the capture when the overhead passes max two
// seconds running (why says so).
type watch struct {
	s      *driver.InfoSampler
	addr   atomic.Value // string
	before load
	during load
	n      int
	why    atomic.Pointer[string]
}

func (w *watch) own() string {
	a, _ := w.addr.Load().(string)
	return a
}

func (w *watch) run(ctx context.Context, last serverstat.Reading, max float64, cancel func()) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	over := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		r, err := w.s.Read(ctx)
		if err != nil {
			continue
		}
		w.addr.Store(w.s.LocalAddr())
		l, ok := between(last, r)
		last = r
		if !ok {
			continue
		}
		w.during.ops, w.during.cores, w.n = w.during.ops+l.ops, w.during.cores+l.cores, w.n+1
		ratio := overhead(w.before, l)
		if max > 0 && ratio > max {
			over++
		} else {
			over = 0
		}
		if over >= 2 {
			why := fmt.Sprintf("MONITOR raised the server's CPU time per command by %.0f %%, above --max-overhead %.0f %%, two seconds running", 100*ratio, 100*max)
			w.why.Store(&why)
			cancel()
			return
		}
	}
}

// overhead is how much more CPU time per command the server spends
// during than before (0 when either is idle).
func overhead(before, during load) float64 {
	b, d := before.perCommand(), during.perCommand()
	if b == 0 || d == 0 {
		return 0
	}
	return d/b - 1
}

// live captures o.Live's server into o.Out and prints what MONITOR cost.
func live(ctx context.Context, o Options, io harness.IO) error {
	l := o.Live
	w := &watch{s: driver.NewInfoSampler(l.Target)}
	defer w.s.Close()
	r0, err := w.s.Read(ctx)
	if err != nil {
		return fmt.Errorf("%s: INFO: %w", l.Target.Addr, err)
	}
	w.addr.Store(w.s.LocalAddr())
	fmt.Fprintf(io.Err, "capture: measuring %s for a second before MONITOR\n", l.Target.Addr)
	time.Sleep(time.Second)
	r1, err := w.s.Read(ctx)
	if err != nil {
		return fmt.Errorf("%s: INFO: %w", l.Target.Addr, err)
	}
	w.before, _ = between(r0, r1)
	out, err := os.Create(o.Out)
	if err != nil {
		return err
	}
	s, err := capture(ctx, o, w, r1, out)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(o.Out)
		return err
	}
	during := load{}
	if w.n > 0 {
		during = load{ops: w.during.ops / float64(w.n), cores: w.during.cores / float64(w.n)}
	}
	fmt.Fprintf(io.Err, "server before MONITOR: %.0f commands/s, %.2f cores; during: %.0f commands/s, %.2f cores (CPU per command %+.0f %%)\n",
		w.before.ops, w.before.cores, during.ops, during.cores, 100*overhead(w.before, during))
	render(io.Out, "MONITOR of "+l.Target.Addr, o.Out, s)
	if why := w.why.Load(); why != nil {
		return fmt.Errorf("the capture stopped early: %s; the trace holds what came before (--max-overhead 0: no limit)", *why)
	}
	return nil
}

// capture runs MONITOR for the duration (or until the watch stops it),
// converting its feed as it comes.
func capture(ctx context.Context, o Options, w *watch, last serverstat.Reading, out io.Writer) (Summary, error) {
	ctx, cancel := context.WithTimeout(ctx, o.Live.Duration)
	defer cancel()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		w.run(ctx, last, o.Live.MaxOverhead, cancel)
	}()
	defer func() { <-watched }()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		err := driver.Monitor(ctx, o.Live.Target, func(line string) error {
			_, err := bw.WriteString(line)
			if err == nil {
				err = bw.WriteByte('\n')
			}
			return err
		})
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		pw.CloseWithError(err)
		done <- err
	}()
	s, err := convert(pr, out, feed{name: "MONITOR of " + o.Live.Target.Addr, source: "MONITOR of " + o.Live.Target.Addr,
		skipClient: w.own, anon: o.anonymizer()})
	_ = pr.CloseWithError(errors.New("the conversion stopped"))
	cancel()
	if merr := <-done; err == nil && merr != nil {
		err = merr
	}
	return s, err
}
