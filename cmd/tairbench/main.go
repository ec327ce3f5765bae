// Command tairbench benchmarks Tair and Redis servers.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/tairbench/tairbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal the run stops cleanly; a second one kills the process.
	context.AfterFunc(ctx, stop)
	code := cli.Execute(ctx, os.Args[1:], cli.Streams{Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
