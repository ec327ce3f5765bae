package cli

import (
	"context"
	"net"
	"strconv"
	"strings"

	"fmt"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/fulltext"
	"github.com/tairbench/tairbench/internal/metrics"
	"github.com/tairbench/tairbench/internal/server"
)

// serveOptions are 'tairbench serve' flags.
type serveOptions struct {
	cfg     server.Config
	bind    string
	port    int
	users   []string
	metrics string
}

func newServeCmd(a *app) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded Tair-compatible server (TairRoaring TR.*, TairSearch TFT.* and generic commands)",
		Long: `Run the embedded server until interrupted. It speaks RESP2/RESP3, supports
MULTI/EXEC, accounts (--requirepass for the default user, --user NAME:PASSWORD;
AUTH NAME PASSWORD, Tair's AUTH NAME:PASSWORD, HELLO 3 AUTH, ACL WHOAMI and
ACL SETUSER NAME on >PASSWORD), INFO, the generic
keyspace commands, GET/SET, every TR.* command of the TairRoaring module and the
TFT.* commands of the TairSearch module.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runServe(c.Context(), o, a) },
	}
	fs := cmd.Flags()
	fs.StringVar(&o.bind, "bind", "127.0.0.1", "address to listen on")
	fs.IntVar(&o.port, "port", 6379, "port to listen on (0 picks a free one)")
	fs.StringVar(&o.cfg.Password, "requirepass", "", "the default user's password")
	fs.StringArrayVar(&o.users, "user", nil, `an account NAME:PASSWORD with every command and key (repeatable); clients log in with AUTH NAME PASSWORD or Tair's AUTH NAME:PASSWORD`)
	fs.IntVar(&o.cfg.MaxClients, "max-clients", 10000, "most concurrent connections")
	fs.Int64Var(&o.cfg.MaxRequest, "max-request", 64<<20, "largest request (bytes of one command's arguments): each connection's budget of pending request bytes")
	fs.StringVar(&o.metrics, "metrics-addr", "", "serve the server's own metrics (Prometheus) on HOST:PORT")
	fs.Int64Var(&o.cfg.MaxPending, "max-pending", 1<<30, "request bytes all connections may have pending together; past it a client gets an error and is closed")
	fs.Int64Var(&o.cfg.MaxQueryBytes, "max-query-bytes", 1<<20, "largest search request body (TFT.SEARCH, TFT.MSEARCH, TFT.EXPLAINSCORE, TFT.EXPLAINCOST)")
	fs.Int64Var(&o.cfg.MaxQueryMemory, "max-query-memory", 256<<20, fmt.Sprintf("memory the search requests running at once may take together (each is charged %d× its body)", server.QueryCost))
	fs.IntVar(&o.cfg.Search.MaxClauses, "max-query-clauses", fulltext.DefaultMaxClauses, "most terms a match query analyses to, and clauses of one bool or dis_max query")
	fs.IntVar(&o.cfg.Search.MaxTerms, "max-query-terms", fulltext.DefaultMaxTerms, "most values of one terms query")
	fs.IntVar(&o.cfg.Search.MaxExpansions, "max-query-expansions", fulltext.DefaultMaxExpansions, "most indexed terms one prefix, wildcard, fuzzy or text range query expands to")
	fs.IntVar(&o.cfg.Search.MaxBuckets, "max-query-buckets", fulltext.DefaultMaxBuckets, "largest size of a terms aggregation (the buckets it returns)")
	return cmd
}

func runServe(ctx context.Context, o *serveOptions, a *app) error {
	o.cfg.Addr = net.JoinHostPort(o.bind, strconv.Itoa(o.port))
	for name, v := range map[string]int64{"--max-request": o.cfg.MaxRequest, "--max-pending": o.cfg.MaxPending,
		"--max-query-bytes": o.cfg.MaxQueryBytes, "--max-query-memory": o.cfg.MaxQueryMemory, "--max-clients": int64(o.cfg.MaxClients),
		"--max-query-clauses": int64(o.cfg.Search.MaxClauses), "--max-query-terms": int64(o.cfg.Search.MaxTerms),
		"--max-query-expansions": int64(o.cfg.Search.MaxExpansions), "--max-query-buckets": int64(o.cfg.Search.MaxBuckets)} {
		if v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", name, v)
		}
	}
	for _, u := range o.users {
		name, pw, ok := strings.Cut(u, ":")
		if !ok || name == "" || name == "default" {
			return fmt.Errorf("--user %q: want NAME:PASSWORD (the default user's password is --requirepass)", u)
		}
		if o.cfg.Users == nil {
			o.cfg.Users = map[string]string{}
		}
		o.cfg.Users[name] = pw
	}
	srv, err := server.Start(o.cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.Err, "tairbench serve: listening on %s\n", srv.Addr())
	if o.metrics != "" {
		mctx, cancel := context.WithCancel(ctx)
		defer cancel()
		addr, err := metrics.ServeServer(mctx, o.metrics, func() metrics.ServerReading {
			c := srv.Counters()
			return metrics.ServerReading{Commands: float64(c.Commands), Rejected: float64(c.Rejected), ConnectionsTotal: float64(c.ConnectionsTotal),
				Clients: float64(c.Clients), PendingBytes: float64(c.PendingBytes), UptimeSeconds: c.Uptime.Seconds()}
		})
		if err != nil {
			_ = srv.Close()
			return err
		}
		fmt.Fprintf(a.Err, "tairbench serve: metrics on http://%s/metrics\n", addr)
	}
	return srv.Serve(ctx)
}
