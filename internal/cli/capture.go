package cli

import (
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/capture"
	"github.com/tairbench/tairbench/internal/frontend/common"
)

func newCaptureCmd(a *app) *cobra.Command {
	var o capture.Options
	live := capture.Live{Duration: 60 * time.Second, MaxOverhead: 1}
	own := common.Defaults()
	var target targetFlags
	cmd := &cobra.Command{
		Use:   "capture",
		Short: "Make a server's own traffic into a trace: recorded through MONITOR, or from monitor text or a packet capture",
		Long: `Records a running server through MONITOR for -d seconds (--host, --port), or
reads MONITOR text already captured (--input: redis-cli monitor's output, or a
memtier --monitor-input file with a "[ proxy ]" before each line), and writes a
tairbench trace: each command with its time, connection, database and
arguments, compressed. It prints the commands, connections, time span and
command mix it read; a live capture also prints what MONITOR cost the server
(its commands/s and CPU before and during) and stops when its CPU time per
command rises by more than --max-overhead. --pcap reads a packet capture (tcpdump
-w) instead: each connection to --port reassembled, its commands in order and
each reply's kind and time.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fs := c.Flags()
			if o.Pcap != "" {
				if target.Port < 1 || target.Port > 65535 {
					return errors.New("--port must be 1 to 65535: the server's port in the capture")
				}
				o.Port = uint16(target.Port)
				return capture.Main(c.Context(), o, a.io())
			}
			if fs.Changed("host") || fs.Changed("port") || fs.Changed("duration") {
				if o.Input != "" {
					return errors.New("--input reads a capture already made; --host, --port and -d record a server: give one or the other")
				}
				tg, err := own.Target(target.Options).Build()
				if err != nil {
					return err
				}
				live.Target = tg
				o.Live = &live
			}
			return capture.Main(c.Context(), o, a.io())
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.Input, "input", "", "MONITOR text to read (redis-cli monitor output)")
	fs.StringVarP(&o.Out, "output", "o", "", "the trace file to write")
	fs.BoolVar(&o.SkipBad, "skip-bad", false, "count lines that do not parse and go on (default: stop at the first, naming it)")
	fs.BoolVar(&o.Anonymize, "anonymize", false, "map the keys' ids one to one and fill over the values (same lengths) before writing: the trace keeps its shape, not your data")
	fs.StringVar(&o.Pcap, "pcap", "", "a packet capture (tcpdump's pcap or pcapng) of the traffic to the server's --port: commands, replies and their times")
	target.registerAddr(fs)
	fs.VarP(seconds(&live.Duration), "duration", "d", "record a server for this long, in seconds (or 1m30s)")
	fs.Float64Var(&live.MaxOverhead, "max-overhead", live.MaxOverhead, "stop recording when MONITOR raises the server's CPU time per command by more than this fraction, two seconds running (0: no limit)")
	fs.DurationVar(&own.Timeout, "timeout", own.Timeout, "connect and per-request timeout")
	return cmd
}
