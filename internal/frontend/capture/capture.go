// Package capture is `tairbench capture`: a server's own traffic made into
// a trace (internal/trace). Today it converts the captures people already
// have: redis-cli monitor text, and memtier's --monitor-input files, plain
// or compressed (gzip, bzip2, zstd).
package capture

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/compressed"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/internal/trace/monitor"
)

// Options are a conversion: the MONITOR text to read, the trace to write,
// and whether lines that do not parse are counted and passed over.
type Options struct {
	Input, Out string
	SkipBad    bool
}

// Summary is what a conversion read and wrote.
type Summary struct {
	Commands, Bad int64
	Connections   int
	Span          time.Duration
	// Mix is each command's count, most first.
	Mix []Count
}

// Count is a command name and how often it came.
type Count struct {
	Name string
	N    int64
}

// Main converts o.Input into the trace o.Out and prints what it holds. A
// line that does not parse stops it (naming the line) unless SkipBad;
// nothing is left at o.Out then.
func Main(o Options, io harness.IO) error {
	switch {
	case o.Input == "":
		return errors.New("--input FILE is required: redis-cli monitor text, or a memtier --monitor-input file")
	case o.Out == "":
		return errors.New("-o TRACE is required: the trace file to write")
	}
	f, err := os.Open(o.Input)
	if err != nil {
		return err
	}
	defer f.Close()
	in, _, done, err := compressed.Reader(f, 256<<10)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Input, err)
	}
	defer done()
	out, err := os.Create(o.Out)
	if err != nil {
		return err
	}
	s, err := convert(in, out, o)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(o.Out)
		return err
	}
	render(io.Out, o, s)
	return nil
}

// convert reads MONITOR lines from in and writes them as a trace to out.
func convert(in io.Reader, out io.Writer, o Options) (Summary, error) {
	var s Summary
	p := monitor.NewParser(in)
	var c monitor.Command
	var w *trace.Writer
	var start time.Time
	conns := map[string]uint32{}
	mix := map[string]int64{}
	for {
		err := p.Next(&c)
		if errors.Is(err, io.EOF) {
			break
		}
		var le *monitor.LineError
		if errors.As(err, &le) && o.SkipBad {
			s.Bad++
			continue
		}
		if errors.As(err, &le) {
			return s, fmt.Errorf("%s: %w (--skip-bad counts such lines and goes on)", o.Input, err)
		}
		if err != nil {
			return s, fmt.Errorf("%s: %w", o.Input, err)
		}
		if w == nil {
			start = c.Time
			if w, err = trace.NewWriter(out, trace.Meta{Source: "MONITOR text: " + o.Input, Start: start}); err != nil {
				return s, err
			}
		}
		id, ok := conns[string(c.Client)]
		if !ok {
			id = uint32(len(conns))
			conns[string(c.Client)] = id
		}
		if err := w.Write(trace.Record{At: c.Time.Sub(start), Conn: id, DB: c.DB, Args: c.Args}); err != nil {
			return s, err
		}
		mix[strings.ToUpper(string(c.Args[0]))]++
		s.Commands++
		s.Span = max(s.Span, c.Time.Sub(start))
	}
	if w == nil {
		return s, fmt.Errorf("%s: no MONITOR command line in it", o.Input)
	}
	s.Connections = len(conns)
	for name, n := range mix {
		s.Mix = append(s.Mix, Count{name, n})
	}
	slices.SortFunc(s.Mix, func(a, b Count) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Name, b.Name)) })
	return s, w.Close()
}

// render prints the summary: counts, the span, the command mix.
func render(w io.Writer, o Options, s Summary) {
	fmt.Fprintf(w, "%s: %d commands from %d connections over %s", o.Input, s.Commands, s.Connections, s.Span.Round(time.Millisecond))
	if s.Bad > 0 {
		fmt.Fprintf(w, "; %d lines that did not parse passed over (--skip-bad)", s.Bad)
	}
	fmt.Fprintf(w, "\ntrace written to %s\ncommand mix:\n", o.Out)
	for _, c := range s.Mix {
		fmt.Fprintf(w, "  %-16s %10d  %5.1f %%\n", c.Name, c.N, 100*float64(c.N)/float64(s.Commands))
	}
}
