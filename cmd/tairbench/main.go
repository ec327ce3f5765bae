// Command tairbench benchmarks Tair and Redis servers.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync/atomic"
	"syscall"

	"github.com/tairbench/tairbench/internal/cli"
)

// profileVar names a file to write the process's CPU profile to, for
// looking into the client's own cost (go tool pprof).
const profileVar = "TAIRBENCH_CPUPROFILE"

func main() {
	// The first SIGINT or SIGTERM stops the run cleanly (its partial
	// results are written); a second one kills the process. An interrupted
	// run exits as shells report a signal: 128 + its number (130, 143).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	var got atomic.Value
	go func() {
		s := <-sigs
		got.Store(s)
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel()
	}()
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
	if s, ok := got.Load().(syscall.Signal); ok {
		code = 128 + int(s)
	}
	cancel()
	pprof.StopCPUProfile()
	os.Exit(code) //nolint:gocritic // the profile is stopped and flushed above
}
