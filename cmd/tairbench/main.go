// Command tairbench benchmarks Tair and Redis servers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/tairbench/tairbench/internal/cli"
)

// profileVar names a file to write the process's CPU profile to, for
// looking into the client's own cost (go tool pprof).
const profileVar = "TAIRBENCH_CPUPROFILE"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal the run stops cleanly; a second one kills the process.
	context.AfterFunc(ctx, stop)
	if path := os.Getenv(profileVar); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "tairbench: %s: %v\n", profileVar, err)
			os.Exit(cli.ExitError1)
		}
		defer f.Close()
	}
	code := cli.Execute(ctx, os.Args[1:], cli.Streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	pprof.StopCPUProfile()
	os.Exit(code) //nolint:gocritic // the profile is stopped and flushed above
}
