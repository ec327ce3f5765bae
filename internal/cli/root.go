// Package cli is tairbench's command tree. It parses flags, builds
// configurations and calls the packages that do the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/bench"
)

// Version, Commit and Date are stamped by the build (-ldflags -X).
var (
	Version = "dev"
	Commit  = "none"
	Date    = "unknown"
)

// ExitError carries a process exit code.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the wrapped error's message.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the wrapped error.
func (e *ExitError) Unwrap() error { return e.Err }

// Exit codes.
const (
	ExitOK        = 0
	ExitError1    = 1 // bad input, cannot connect, cannot write output
	ExitRunFailed = 3 // the run completed but most commands failed
)

// Streams are the process's output streams.
type Streams struct {
	Out, Err io.Writer
}

// NewRoot builds the command tree.
func NewRoot(s Streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "tairbench",
		Short:         "Benchmarks for Tair and Redis: command templates, TairRoaring and TairSearch workloads",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       fmt.Sprintf("%s (commit %s, built %s)", Version, Commit, Date),
	}
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.AddCommand(newRedisCmd(s))
	for _, f := range extraCommands {
		root.AddCommand(f(s))
	}
	return root
}

// extraCommands lets other files of this package register subcommands.
var extraCommands []func(Streams) *cobra.Command

// Execute runs the CLI with args and returns the process exit code.
func Execute(ctx context.Context, args []string, s Streams) int {
	bench.Version = Version
	root := NewRoot(s)
	root.SetArgs(normalizeArgs(root, args))
	err := root.ExecuteContext(ctx)
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
