// Package serve is 'tairbench serve': the embedded Tair-compatible server
// (TairRoaring, TairSearch, TairVector and the generic commands) on a port
// until the context ends, with its own metrics when asked.
package serve

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/internal/metrics"
	"github.com/tairbench/tairbench/internal/server"
)

// QueryCost is how many times its body one search request is charged
// against MaxQueryMemory.
const QueryCost = server.QueryCost

// Options are 'tairbench serve': where to listen, the accounts as
// NAME:PASSWORD, the metrics address ("" none) and the server's limits.
type Options struct {
	server.Config
	Bind    string
	Port    int
	Users   []string
	Metrics string
}

// Defaults are the options with the search limits' defaults set.
func Defaults() Options {
	var o Options
	o.Search.MaxClauses = fulltext.DefaultMaxClauses
	o.Search.MaxTerms = fulltext.DefaultMaxTerms
	o.Search.MaxExpansions = fulltext.DefaultMaxExpansions
	o.Search.MaxBuckets = fulltext.DefaultMaxBuckets
	o.Search.MaxTime = fulltext.DefaultMaxTime
	return o
}

// check refuses a limit below 1 and reads the accounts into Users.
func (o *Options) check() error {
	o.Addr = net.JoinHostPort(o.Bind, strconv.Itoa(o.Port))
	for name, v := range map[string]int64{"--max-request": o.MaxRequest, "--max-pending": o.MaxPending,
		"--max-query-bytes": o.MaxQueryBytes, "--max-query-memory": o.MaxQueryMemory, "--max-clients": int64(o.MaxClients),
		"--max-query-clauses": int64(o.Search.MaxClauses), "--max-query-terms": int64(o.Search.MaxTerms),
		"--max-query-expansions": int64(o.Search.MaxExpansions), "--max-query-buckets": int64(o.Search.MaxBuckets)} {
		if v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", name, v)
		}
	}
	if o.Search.MaxTime <= 0 {
		return fmt.Errorf("--max-query-time must be above 0, got %s", o.Search.MaxTime)
	}
	for _, u := range o.Users {
		name, pw, ok := strings.Cut(u, ":")
		if !ok || name == "" || name == "default" {
			return fmt.Errorf("--user %q: want NAME:PASSWORD (the default user's password is --requirepass)", u)
		}
		if o.Config.Users == nil {
			o.Config.Users = map[string]string{}
		}
		o.Config.Users[name] = pw
	}
	return nil
}

// Run serves until ctx ends.
func Run(ctx context.Context, o Options, io harness.IO) error {
	if err := o.check(); err != nil {
		return err
	}
	srv, err := server.Start(o.Config)
	if err != nil {
		return err
	}
	fmt.Fprintf(io.Err, "tairbench serve: listening on %s\n", srv.Addr())
	if o.Metrics != "" {
		mctx, cancel := context.WithCancel(ctx)
		defer cancel()
		addr, err := metrics.ServeServer(mctx, o.Metrics, func() metrics.ServerReading {
			c := srv.Counters()
			return metrics.ServerReading{Commands: float64(c.Commands), Rejected: float64(c.Rejected), ConnectionsTotal: float64(c.ConnectionsTotal),
				Clients: float64(c.Clients), PendingBytes: float64(c.PendingBytes), UptimeSeconds: c.Uptime.Seconds()}
		})
		if err != nil {
			_ = srv.Close()
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		fmt.Fprintf(io.Err, "tairbench serve: metrics on http://%s/metrics\n", addr)
	}
	return srv.Serve(ctx)
}
