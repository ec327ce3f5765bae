package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/flagval"

	"github.com/spf13/pflag"

	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/pkg/cmdtmpl"
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
		return endpoint.Target{}, err
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
	stop, err := startEmbedded(&tg, a)
	if err != nil {
		return endpoint.Target{}, func() {}, err
	}
	return tg, stop, nil
}

// outputFlags select the result files of a single run.
type outputFlags struct {
	json, csv, hgrm string
	quiet           bool
}

func (o *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&o.json, "json", "", "write the result as JSON to this file (- for stdout)")
	fs.StringVar(&o.csv, "csv", "", "write the per-second series as CSV to this file")
	fs.StringVar(&o.hgrm, "hgrm", "", "write the latency percentile distribution (.hgrm) to this file")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no per-second progress lines")
}

// seedOrNew returns seed, or a new random base seed when it is 0.
func seedOrNew(seed uint64) uint64 {
	if seed == 0 {
		return engine.NewSeed()
	}
	return seed
}

// distFlags run one client of several: --shard and --start-at.
type distFlags struct {
	shard   string
	startAt string
}

func (d *distFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&d.shard, "shard", "", "this client's part of a load from several machines, as i/N (0 ≤ i < N): a distinct seed stream and its own slice of sequential ranges")
	fs.StringVar(&d.startAt, "start-at", "", "start measuring at this wall-clock time (RFC 3339, or Unix seconds), once connected, so that several clients measure the same seconds")
}

// parse returns the shard (i, n; 0, 1 without --shard) and the start time.
func (d *distFlags) parse() (i, n int, at time.Time, err error) {
	n = 1
	if d.shard != "" {
		a, b, ok := strings.Cut(d.shard, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
			return 0, 1, at, fmt.Errorf("--shard %q: want i/N with 0 ≤ i < N", d.shard)
		}
		return d.withStart(i, n)
	}
	return d.withStart(0, 1)
}

func (d *distFlags) withStart(i, n int) (int, int, time.Time, error) {
	if d.startAt == "" {
		return i, n, time.Time{}, nil
	}
	if secs, err := strconv.ParseFloat(d.startAt, 64); err == nil {
		return i, n, time.Unix(0, int64(secs*1e9)), nil
	}
	at, err := time.Parse(time.RFC3339Nano, d.startAt)
	if err != nil {
		return i, n, at, fmt.Errorf("--start-at %q: want RFC 3339 (2026-11-23T15:00:00Z) or Unix seconds", d.startAt)
	}
	return i, n, at, nil
}

// shardSeed is shard i's base seed: a stream of its own, derived from base.
func shardSeed(base uint64, i, n int) uint64 {
	if n <= 1 {
		return base
	}
	return engine.WorkerSeed(base, 1_000_000+i)
}

// shardRanges gives shard i of n its own slice of every sequential range.
func shardRanges(o *cmdtmpl.Options, i, n int) {
	if n <= 1 {
		return
	}
	for k := range o.Ranges {
		r := &o.Ranges[k]
		if r.Dist != cmdtmpl.Seq || r.Max == 0 {
			continue
		}
		size := r.Max / uint64(n)
		lo := uint64(i) * size
		if i == n-1 {
			size = r.Max - lo
		}
		r.Offset += lo
		r.Max = max(size, 1)
	}
}
