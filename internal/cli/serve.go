package cli

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/tairbench/tairbench/internal/frontend/serve"
)

// serveOptions are 'tairbench serve' flags.

func newServeCmd(a *app) *cobra.Command {
	o := serve.Defaults()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded Tair-compatible server (TairRoaring TR.*, TairSearch TFT.*, TairVector TVS.* and generic commands)",
		Long: `Run the embedded server until interrupted. It speaks RESP2/RESP3, supports
MULTI/EXEC, accounts (--requirepass for the default user, --user NAME:PASSWORD;
AUTH NAME PASSWORD, Tair's AUTH NAME:PASSWORD, HELLO 3 AUTH, ACL WHOAMI and
ACL SETUSER NAME on >PASSWORD), INFO, the generic
keyspace commands, GET/SET, every TR.* command of the TairRoaring module, the
TFT.* commands of TairSearch and the TVS.* commands of TairVector.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return serve.Run(c.Context(), o, a.io()) },
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Bind, "bind", "127.0.0.1", "address to listen on")
	fs.IntVar(&o.Port, "port", 6379, "port to listen on (0 picks a free one)")
	fs.StringVar(&o.Password, "requirepass", "", "the default user's password")
	fs.StringArrayVar(&o.Users, "user", nil, `an account NAME:PASSWORD with every command and key (repeatable); clients log in with AUTH NAME PASSWORD or Tair's AUTH NAME:PASSWORD`)
	fs.IntVar(&o.MaxClients, "max-clients", 10000, "most concurrent connections")
	fs.Int64Var(&o.MaxRequest, "max-request", 64<<20, "largest request (bytes of one command's arguments): each connection's budget of pending request bytes")
	fs.StringVar(&o.Metrics, "metrics-addr", "", "serve the server's own metrics (Prometheus) on HOST:PORT")
	fs.Int64Var(&o.MaxPending, "max-pending", 1<<30, "request bytes all connections may have pending together; past it a client gets an error and is closed")
	fs.Int64Var(&o.MaxQueryBytes, "max-query-bytes", 1<<20, "largest search request body (TFT.SEARCH, TFT.MSEARCH, TFT.EXPLAINSCORE, TFT.EXPLAINCOST)")
	fs.Int64Var(&o.MaxQueryMemory, "max-query-memory", 256<<20, fmt.Sprintf("memory the search requests running at once may take together (each is charged %d× its body)", serve.QueryCost))
	fs.IntVar(&o.Search.MaxClauses, "max-query-clauses", o.Search.MaxClauses, "most terms a match query analyses to, and clauses of one bool or dis_max query")
	fs.IntVar(&o.Search.MaxTerms, "max-query-terms", o.Search.MaxTerms, "most values of one terms query")
	fs.IntVar(&o.Search.MaxExpansions, "max-query-expansions", o.Search.MaxExpansions, "most indexed terms one prefix, wildcard, fuzzy or text range query expands to")
	fs.IntVar(&o.Search.MaxBuckets, "max-query-buckets", o.Search.MaxBuckets, "largest size of a terms aggregation (the buckets it returns)")
	fs.DurationVar(&o.Search.MaxTime, "max-query-time", o.Search.MaxTime, "longest one search request may run (TFT.SEARCH, TFT.MSEARCH, TFT.EXPLAINSCORE, TFT.EXPLAINCOST), as Elasticsearch's search timeout; past it the request is refused")
	return cmd
}
