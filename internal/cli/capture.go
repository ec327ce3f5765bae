package cli

import (
	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/frontend/capture"
)

func newCaptureCmd(a *app) *cobra.Command {
	var o capture.Options
	cmd := &cobra.Command{
		Use:   "capture",
		Short: "Make a server's own traffic into a trace: from redis-cli monitor text or a memtier --monitor-input file",
		Long: `Reads MONITOR text (redis-cli monitor's output, or a memtier --monitor-input
file with a "[ proxy ]" before each line) and writes a tairbench trace: each
command with its time, connection, database and arguments, compressed. It
prints the commands, connections, time span and command mix it read.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return capture.Main(o, a.io()) },
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Input, "input", "", "MONITOR text to read (redis-cli monitor output)")
	fs.StringVarP(&o.Out, "output", "o", "", "the trace file to write")
	fs.BoolVar(&o.SkipBad, "skip-bad", false, "count lines that do not parse and go on (default: stop at the first, naming it)")
	return cmd
}
