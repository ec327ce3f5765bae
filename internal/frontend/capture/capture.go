// Package capture is `tairbench capture`: a server's own traffic made into
// a trace (internal/trace). Today it converts the captures people already
// have: redis-cli monitor text, and memtier's --monitor-input files, plain
// or compressed (gzip, bzip2, zstd).
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/compressed"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/internal/trace/anonymize"
	"github.com/tairbench/tairbench/internal/trace/monitor"
)

// Options are a capture: the MONITOR text to read (Input) or the live
// server to record (Live, when Input is empty), the trace to write, and
// whether lines that do not parse are counted and passed over.
type Options struct {
	Input, Out string
	SkipBad    bool
	// Live, when its target is set, records a running server instead.
	Live *Live
	// Pcap, when set, reads a packet capture (pcap or pcapng) of the
	// traffic to the server's Port instead.
	Pcap string
	Port uint16
	// Anonymize maps the keys' ids and fills over the values
	// (internal/trace/anonymize) before anything is written.
	Anonymize bool
}

// anonymizer is o's, or nil.
func (o Options) anonymizer() *anonymize.Anonymizer {
	if !o.Anonymize {
		return nil
	}
	return anonymize.New()
}

// Summary is what a conversion read and wrote.
type Summary struct {
	// Own counts a live capture's own commands (its sampler's INFO),
	// left out.
	Commands, Bad, Own int64
	Connections        int
	Span               time.Duration
	// Mix is each command's count, most first.
	Mix []Count
}

// Count is a command name and how often it came.
type Count = trace.Count

// Main converts o.Input into the trace o.Out and prints what it holds. A
// line that does not parse stops it (naming the line) unless SkipBad;
// nothing is left at o.Out then.
func Main(ctx context.Context, o Options, io harness.IO) error {
	given := 0
	for _, g := range []bool{o.Input != "", o.Live != nil, o.Pcap != ""} {
		if g {
			given++
		}
	}
	switch {
	case given > 1:
		return errors.New("give one source: --input (MONITOR text), --pcap (a packet capture) or a server to record (--host, --port, -d)")
	case given == 0:
		return errors.New("give --input FILE (redis-cli monitor text, or a memtier --monitor-input file), --pcap FILE, or the server to record (--host, --port, -d)")
	case o.Out == "":
		return errors.New("-o TRACE is required: the trace file to write")
	case o.Live != nil && o.Live.Duration <= 0:
		return errors.New("-d must be above 0: how long to record")
	case o.Live != nil && o.Live.Target.Cluster:
		return errors.New("--cluster: MONITOR records one node; capture each node on its own")
	case o.Live != nil && o.Live.MaxOverhead < 0:
		return errors.New("--max-overhead must not be negative (0: no limit)")
	case o.Live != nil:
		return live(ctx, o, io)
	case o.Pcap != "":
		return fromPcap(o, io)
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
	s, err := convert(in, out, feed{name: o.Input, source: "MONITOR text: " + o.Input, skipBad: o.SkipBad, anon: o.anonymizer()})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(o.Out)
		return err
	}
	render(io.Out, o.Input, o.Out, s)
	return nil
}

// feed is where MONITOR lines come from: the name errors give, the
// trace's source, whether bad lines are counted and passed over, and a
// client whose commands are left out (a live capture's own sampler).
type feed struct {
	name, source string
	skipBad      bool
	skipClient   func() string
	anon         *anonymize.Anonymizer
}

// convert reads MONITOR lines from in and writes them as a trace to out.
func convert(in io.Reader, out io.Writer, o feed) (Summary, error) {
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
		if errors.As(err, &le) && o.skipBad {
			s.Bad++
			continue
		}
		if errors.As(err, &le) {
			return s, fmt.Errorf("%s: %w (--skip-bad counts such lines and goes on)", o.name, err)
		}
		if err != nil {
			return s, fmt.Errorf("%s: %w", o.name, err)
		}
		if o.skipClient != nil && string(c.Client) == o.skipClient() {
			s.Own++
			continue
		}
		if w == nil {
			start = c.Time
			if w, err = trace.NewWriter(out, trace.Meta{Source: o.source, Start: start, Anonymized: o.anon != nil}); err != nil {
				return s, err
			}
		}
		id, ok := conns[string(c.Client)]
		if !ok {
			id = uint32(len(conns))
			conns[string(c.Client)] = id
		}
		rec := trace.Record{At: c.Time.Sub(start), Conn: id, DB: c.DB, Args: c.Args}
		if o.anon != nil {
			o.anon.Record(&rec)
		}
		if err := w.Write(rec); err != nil {
			return s, err
		}
		mix[strings.ToUpper(string(c.Args[0]))]++
		s.Commands++
		s.Span = max(s.Span, c.Time.Sub(start))
	}
	if w == nil {
		return s, fmt.Errorf("%s: no MONITOR command line in it", o.name)
	}
	s.Connections = len(conns)
	s.Mix = trace.Counts(mix)
	return s, w.Close()
}

// render prints the summary of what came from name into the trace out:
// counts, the span, the command mix.
func render(w io.Writer, name, out string, s Summary) {
	fmt.Fprintf(w, "%s: %d commands from %d connections over %s", name, s.Commands, s.Connections, s.Span.Round(time.Millisecond))
	if s.Bad > 0 {
		fmt.Fprintf(w, "; %d lines that did not parse passed over (--skip-bad)", s.Bad)
	}
	if s.Own > 0 {
		fmt.Fprintf(w, "; %d of tairbench's own INFO left out", s.Own)
	}
	fmt.Fprintf(w, "\ntrace written to %s\ncommand mix:\n", out)
	for _, c := range s.Mix {
		fmt.Fprintf(w, "  %-16s %10d  %5.1f %%\n", c.Name, c.N, 100*float64(c.N)/float64(s.Commands))
	}
}
