package cli

import (
	"time"

	"github.com/tairbench/tairbench/internal/flagval"
	"github.com/tairbench/tairbench/internal/frontend/target"

	"github.com/spf13/pflag"
)

// seconds is a duration flag on d that takes whole seconds or a duration.
func seconds(d *time.Duration) flagval.Seconds { return flagval.Seconds{D: d} }

// targetFlags are the connection flags of every command that talks to a
// RESP server, bound to the target front-end's Options.
type targetFlags struct {
	target.Options
}

// register binds every target flag: -h/--host, --port and -a/--auth
// (the whitepaper tool's letters) and the login, TLS and protocol flags.
func (t *targetFlags) register(fs *pflag.FlagSet) {
	t.registerHost(fs)
	t.registerConn(fs)
	t.registerCluster(fs)
}

// registerHost binds -h/--host, --port and -a/--auth.
func (t *targetFlags) registerHost(fs *pflag.FlagSet) {
	// -h is the host, as in redis-benchmark and the whitepaper's tool; help is --help.
	fs.Bool("help", false, "help for this command")
	fs.StringVarP(&t.Host, "host", "h", "127.0.0.1", "server host (or host:port)")
	fs.IntVar(&t.Port, "port", 6379, "server port")
	fs.StringVarP(&t.Auth, "auth", "a", "", `password, or "user:password" (Tair's form; an ACL user on Redis 6+)`)
}

// registerCluster binds --cluster.
func (t *targetFlags) registerCluster(fs *pflag.FlagSet) {
	fs.BoolVar(&t.Cluster, "cluster", false, "a Redis Cluster: route each command to its key's node (CRC16 slots, MOVED and ASK followed)")
}

// registerAddr binds the target flags of a command whose --embedded and
// --timeout are tairbench's own options (common.Options): the address,
// -a, the login, TLS and protocol flags and --cluster.
func (t *targetFlags) registerAddr(fs *pflag.FlagSet) {
	t.registerHost(fs)
	t.registerLogin(fs)
	t.registerCluster(fs)
}

// registerConn binds the login, TLS, protocol and --embedded flags: all but
// the address, -a and --cluster, for commands whose letters mean something
// else (search's -a is the address).
func (t *targetFlags) registerConn(fs *pflag.FlagSet) {
	t.registerLogin(fs)
	fs.DurationVar(&t.Timeout, "timeout", 10*time.Second, "connect and per-request timeout")
	fs.BoolVar(&t.Embedded, "embedded", false, "start the embedded server in this process and target it")
}

// registerLogin binds the login, TLS and protocol flags.
func (t *targetFlags) registerLogin(fs *pflag.FlagSet) {
	fs.StringVar(&t.User, "user", "", "ACL user name")
	fs.StringVar(&t.Password, "password", "", "password (prefer the TAIRBENCH_PASSWORD environment variable)")
	fs.IntVar(&t.DB, "db", 0, "database number (SELECT)")
	fs.IntVar(&t.Protocol, "resp", 2, "protocol version: 2 or 3")
	fs.BoolVar(&t.TLS, "tls", false, "connect with TLS")
	fs.StringVar(&t.TLSCA, "tls-ca", "", "CA certificate file (PEM) to verify the server")
	fs.StringVar(&t.TLSCert, "tls-cert", "", "client certificate file (PEM)")
	fs.StringVar(&t.TLSKey, "tls-key", "", "client key file (PEM)")
	fs.BoolVar(&t.TLSInsecure, "tls-insecure", false, "do not verify the server's certificate")
	fs.StringVar(&t.TLSServerName, "tls-server-name", "", "server name to verify (default: the host)")
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
