package cli

import (
	"fmt"

	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/internal/target"
)

// startEmbedded starts the embedded server in this process on a free
// loopback port, with the account t logs in with, and points t at it. It
// returns the function that stops the server.
func startEmbedded(t *target.Target, a *app) (func(), error) {
	cfg := server.Config{Addr: "127.0.0.1:0"}
	if user, pw := t.ServerAccount(); user != "" {
		cfg.Users = map[string]string{user: pw}
	} else {
		cfg.Password = pw
	}
	srv, err := server.Start(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedded server: %w", err)
	}
	t.Addr, t.InProcess = srv.Addr(), true
	fmt.Fprintf(a.Err, "embedded server listening on %s\n", srv.Addr())
	return func() { _ = srv.Close() }, nil
}
