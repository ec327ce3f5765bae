package cli

import (
	"fmt"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/server"
)

// startEmbedded starts the embedded server in this process on a free
// loopback port, with the account t logs in with, and points t at it. It
// returns the function that stops the server.
func startEmbedded(t *endpoint.Target, a *app) (func(), error) {
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

// frontEndTarget takes a peer tool front-end's target (and the error of
// building it) and, with --embedded, starts the embedded server for it.
// The stop function is never nil.
func frontEndTarget(a *app, t endpoint.Target, err error, embedded bool) (endpoint.Target, func(), error) {
	if err != nil {
		return t, func() {}, err
	}
	if !embedded {
		return t, func() {}, nil
	}
	stop, err := startEmbedded(&t, a)
	if err != nil {
		return t, func() {}, err
	}
	return t, stop, nil
}
