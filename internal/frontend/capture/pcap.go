package capture

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/trace"
	"github.com/tairbench/tairbench/internal/trace/pcap"
)

// fromPcap converts a packet capture's RESP traffic to o.Port into the
// trace o.Out, with each reply's kind and time; nothing is left at o.Out
// when the capture is refused.
func fromPcap(o Options, hio harness.IO) error {
	f, err := os.Open(o.Pcap)
	if err != nil {
		return err
	}
	defer f.Close()
	out, err := os.Create(o.Out)
	if err != nil {
		return err
	}
	s, st, lat, err := convertPcap(f, out, o)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(o.Out)
		return fmt.Errorf("%s: %w", o.Pcap, err)
	}
	render(hio.Out, o.Pcap, o.Out, s)
	fmt.Fprintf(hio.Out, "%d packets; %d replies matched to their commands", st.Packets, st.Replies)
	if len(lat) > 0 {
		slices.Sort(lat)
		fmt.Fprintf(hio.Out, " (reply after p50 %s, p99 %s, as the capture saw them)", lat[len(lat)/2], lat[len(lat)*99/100])
	}
	fmt.Fprintln(hio.Out)
	if st.Unmatched+st.Gaps+st.Bad+st.Feed > 0 {
		fmt.Fprintf(hio.Out, "left out: %d replies with no command (a connection seen from its middle), %d feed lines (MONITOR, SUBSCRIBE), %d gaps in a stream, %d streams that stopped parsing\n",
			st.Unmatched, st.Feed, st.Gaps, st.Bad)
	}
	return nil
}

// convertPcap writes the capture's commands as a trace; it returns the
// summary, the capture's figures and the reply times (a sample).
func convertPcap(in io.Reader, out io.Writer, o Options) (Summary, pcap.Stats, []time.Duration, error) {
	var s Summary
	var w *trace.Writer
	var lat []time.Duration
	anon := o.anonymizer()
	mix := map[string]int64{}
	conns := map[uint32]bool{}
	st, err := pcap.Read(in, o.Port, func(r *trace.Record) error {
		if w == nil {
			var err error
			meta := trace.Meta{Source: fmt.Sprintf("pcap: %s (port %d)", o.Pcap, o.Port), Anonymized: anon != nil}
			if w, err = trace.NewWriter(out, meta); err != nil {
				return err
			}
		}
		if anon != nil {
			anon.Record(r)
		}
		if r.Reply != trace.ReplyUnknown && len(lat) < 1<<20 {
			lat = append(lat, r.ReplyAfter)
		}
		mix[strings.ToUpper(string(r.Args[0]))]++
		conns[r.Conn] = true
		s.Commands++
		s.Span = max(s.Span, r.At)
		return w.Write(*r)
	})
	if err != nil {
		return s, st, nil, err
	}
	s.Connections = len(conns)
	s.Mix = trace.Counts(mix)
	return s, st, lat, w.Close()
}
