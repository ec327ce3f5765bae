// Package cli is tairbench's command tree. It maps each command's flags to
// a front-end's options (internal/frontend/...), calls the front-end's Run
// and turns its error into an exit status; nothing else lives here.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/frontend/target"
)

// Version, Commit and Date are stamped by the build (-ldflags -X).
var (
	Version = "dev"
	Commit  = "none"
	Date    = "unknown"
)

// ExitError carries an exit code other than 1 (any other error exits 1).
type ExitError = harness.ExitError

// Exit codes.
const (
	ExitOK        = harness.ExitOK
	ExitError1    = harness.ExitError1    // bad input, cannot connect, cannot write output
	ExitRunFailed = harness.ExitRunFailed // the run completed but most commands failed
)

// Streams are the process's streams; a nil In reads the process's
// standard input.
type Streams struct {
	Out, Err io.Writer
	In       io.Reader
}

// app is what every command needs: the streams and the tool version.
type app struct {
	Streams
	version string
}

// io is the front-ends' view of the app: its streams (standard input
// too) and the version results record.
func (a *app) io() harness.IO {
	in := a.In
	if in == nil {
		in = os.Stdin
	}
	return harness.IO{Out: a.Out, Err: a.Err, In: in, Version: a.version}
}

// commands lists every subcommand, in the order help shows them.
var commands = []func(*app) *cobra.Command{
	newRedisCmd,
	newRedisBenchmarkCmd,
	newMemtierCmd,
	newRespBenchmarkCmd,
	newSuiteCmd,
	newYCSBCmd,
	newMergeCmd,
	newResultCompareCmd,
	newK8sCmd,
	newReportCmd,
	newHistoryCmd,
	newStoreCmd,
	newGateCmd,
	newRoaringCmd,
	newBitmapCmd,
	newSearchCmd,
	newVectorCmd,
	newWikiCmd,
	newCaptureCmd,
	newReplayCmd,
	newFitCmd,
	newTopologyCmd,
	newServeCmd,
	newVersionCmd,
}

// NewRoot builds the command tree.
func NewRoot(s Streams) *cobra.Command {
	a := &app{Streams: s, version: Version}
	root := &cobra.Command{
		Use:           "tairbench",
		Short:         "Benchmarks for Tair and Redis: command templates, TairRoaring and TairSearch workloads",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionLine(),
	}
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	for _, f := range commands {
		root.AddCommand(f(a))
	}
	withExamples(root)
	return root
}

func versionLine() string { return fmt.Sprintf("%s (commit %s, built %s)", Version, Commit, Date) }

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(a.Out, "tairbench version %s\n", versionLine())
			return err
		},
	}
}

// Execute runs the CLI with args and returns the process exit code.
func Execute(ctx context.Context, args []string, s Streams) int {
	root := NewRoot(s)
	args = normalizeArgs(root, args)
	if cmd, rest, ferr := root.Find(args); ferr == nil && cmd != nil {
		if err := repeatedFlag(cmd, rest); err != nil {
			fmt.Fprintf(s.Err, "tairbench: %v\n", err)
			return ExitError1
		}
	}
	root.SetArgs(args)
	err := target.Hint(root.ExecuteContext(ctx))
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(s.Err, "tairbench: %v\n", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(s.Err, "tairbench: %v\n", err)
	return ExitError1
}

// normalizeArgs accepts the whitepaper tool's single-dash long flags
// (-port 6379, -command "…", -batching 10, -r2 100) by rewriting them to
// --port etc. for the subcommand being run.
func normalizeArgs(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		return args
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			name, _, _ := strings.Cut(a[1:], "=")
			if len(name) > 1 && isLongFlag(cmd, name) {
				a = "-" + a
			}
		}
		out = append(out, a)
	}
	return out
}

func isLongFlag(cmd *cobra.Command, name string) bool {
	var found bool
	check := func(fs *pflag.FlagSet) {
		if fs.Lookup(name) != nil {
			found = true
		}
	}
	check(cmd.Flags())
	check(cmd.InheritedFlags())
	return found
}
