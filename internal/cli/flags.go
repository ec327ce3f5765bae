package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/harness"

	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/endpoint"
)

// seconds is a duration flag on d that takes whole seconds or a duration.
func seconds(d *time.Duration) flagval.Seconds { return flagval.Seconds{D: d} }

// targetFlags are the connection flags of every command that talks to a
// RESP server; resolve turns them into one endpoint.Target.
type targetFlags struct {
	host, auth, user, password string
	port, db, resp             int
	timeout                    time.Duration
	tls, tlsInsecure           bool
	tlsCA, tlsCert, tlsKey     string
	tlsServerName              string
	cluster, embedded          bool
}

// register binds every target flag: -h/--host, --port and -a/--auth
// (the whitepaper tool's letters) and the login, TLS and protocol flags.
func (t *targetFlags) register(fs *pflag.FlagSet) {
	// -h is the host, as in redis-benchmark and the whitepaper's tool; help is --help.
	fs.Bool("help", false, "help for this command")
	fs.StringVarP(&t.host, "host", "h", "127.0.0.1", "server host (or host:port)")
	fs.IntVar(&t.port, "port", 6379, "server port")
	fs.StringVarP(&t.auth, "auth", "a", "", `password, or "user:password" (Tair's form; an ACL user on Redis 6+)`)
	t.registerConn(fs)
	fs.BoolVar(&t.cluster, "cluster", false, "a Redis Cluster: route each command to its key's node (CRC16 slots, MOVED and ASK followed)")
}

// registerConn binds the login, TLS, protocol and --embedded flags: all but
// the address, -a and --cluster, for commands whose letters mean something
// else (search's -a is the address).
func (t *targetFlags) registerConn(fs *pflag.FlagSet) {
	fs.StringVar(&t.user, "user", "", "ACL user name")
	fs.StringVar(&t.password, "password", "", "password (prefer the TAIRBENCH_PASSWORD environment variable)")
	fs.IntVar(&t.db, "db", 0, "database number (SELECT)")
	fs.IntVar(&t.resp, "resp", 2, "protocol version: 2 or 3")
	fs.DurationVar(&t.timeout, "timeout", 10*time.Second, "connect and per-request timeout")
	fs.BoolVar(&t.tls, "tls", false, "connect with TLS")
	fs.StringVar(&t.tlsCA, "tls-ca", "", "CA certificate file (PEM) to verify the server")
	fs.StringVar(&t.tlsCert, "tls-cert", "", "client certificate file (PEM)")
	fs.StringVar(&t.tlsKey, "tls-key", "", "client key file (PEM)")
	fs.BoolVar(&t.tlsInsecure, "tls-insecure", false, "do not verify the server's certificate")
	fs.StringVar(&t.tlsServerName, "tls-server-name", "", "server name to verify (default: the host)")
	fs.BoolVar(&t.embedded, "embedded", false, "start the embedded server in this process and target it")
}

// build returns the target the flags describe, without starting anything.
func (t *targetFlags) build() (endpoint.Target, error) {
	addr, err := endpoint.HostPort(t.host, t.port)
	if err != nil {
		return endpoint.Target{}, err
	}
	pw := t.password
	if pw == "" {
		pw = os.Getenv("TAIRBENCH_PASSWORD")
	}
	tg := endpoint.Target{Addr: addr, Auth: t.auth, User: t.user, Password: pw, DB: t.db, Protocol: t.resp, Timeout: t.timeout,
		Cluster: t.cluster}
	if t.tls || t.tlsCA != "" || t.tlsInsecure || t.tlsCert != "" {
		tg.TLS = &endpoint.TLS{CAFile: t.tlsCA, CertFile: t.tlsCert, KeyFile: t.tlsKey, Insecure: t.tlsInsecure, ServerName: t.tlsServerName}
	}
	if err := tg.Validate(); err != nil {
		return endpoint.Target{}, flagError(err)
	}
	return tg, nil
}

// resolve builds the target and, with --embedded, starts the embedded
// server and points the target at it. The stop function is never nil.
func (t *targetFlags) resolve(a *app) (endpoint.Target, func(), error) {
	tg, err := t.build()
	if err != nil {
		return endpoint.Target{}, func() {}, err
	}
	if !t.embedded {
		return tg, func() {}, nil
	}
	stop, err := harness.StartEmbedded(a.io(), &tg)
	if err != nil {
		return endpoint.Target{}, func() {}, err
	}
	return tg, stop, nil
}

// shardFlags run one client of several: --shard and --start-at.
type shardFlags struct {
	shard   string
	startAt string
}

func (d *shardFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&d.shard, "shard", "", "this client's part of a load from several machines, as i/N (0 ≤ i < N): a distinct seed stream and its own slice of sequential ranges")
	fs.StringVar(&d.startAt, "start-at", "", "start measuring at this wall-clock time (RFC 3339, or Unix seconds), once connected, so that several clients measure the same seconds")
}

// flagError names the flag behind an endpoint's field error.
func flagError(err error) error {
	var fe *endpoint.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	switch fe.Field {
	case "protocol":
		return fmt.Errorf("--resp must be 2 or 3, got %d", fe.Value)
	case "db":
		return fmt.Errorf("--db must not be negative, got %d", fe.Value)
	}
	return err
}
