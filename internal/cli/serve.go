package cli

import (
	"fmt"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/tairbench/tairbench/internal/server"
)

func init() { extraCommands = append(extraCommands, newServeCmd) }

func newServeCmd(s Streams) *cobra.Command {
	var cfg server.Config
	var bind string
	var port int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the embedded Tair-compatible server (TairRoaring TR.* and generic commands)",
		Long: `Run the embedded server until interrupted. It speaks RESP2/RESP3, supports
MULTI/EXEC, AUTH (a password, or Tair's "user:password"), INFO, the generic
keyspace commands, GET/SET and every TR.* command of the TairRoaring module.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg.Addr = net.JoinHostPort(bind, strconv.Itoa(port))
			srv, err := server.Start(cfg)
			if err != nil {
				return &ExitError{Code: ExitError1, Err: err}
			}
			fmt.Fprintf(s.Err, "tairbench serve: listening on %s\n", srv.Addr())
			return srv.Serve(c.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&bind, "bind", "127.0.0.1", "address to listen on")
	fs.IntVar(&port, "port", 6379, "port to listen on (0 picks a free one)")
	fs.StringVar(&cfg.Password, "requirepass", "", "password clients must AUTH with")
	fs.IntVar(&cfg.MaxClients, "max-clients", 10000, "most concurrent connections")
	fs.Int64Var(&cfg.MaxRequest, "max-request", 64<<20, "largest request (bytes of one command's arguments)")
	return cmd
}
