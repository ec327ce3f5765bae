// Package target resolves what a user says of a server into the endpoint a
// run measures: a remote address, the embedded server started in this
// process (--embedded), or a redis-server started for the run. It is the
// one place a front-end starts a server for its target; the command line
// only fills Options from its flags.
package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/driver/catalog"
	"github.com/tairbench/tairbench/internal/driver/redis"
	"github.com/tairbench/tairbench/internal/driver/redis/cluster"
	"github.com/tairbench/tairbench/internal/driver/redis/transport"
	"github.com/tairbench/tairbench/internal/endpoint"
	"github.com/tairbench/tairbench/internal/frontend/harness"
	"github.com/tairbench/tairbench/internal/run"
	"github.com/tairbench/tairbench/internal/server"
	"github.com/tairbench/tairbench/pkg/result"
)

// Endpoint is the resolved server a run measures.
type Endpoint = endpoint.Target

// Options are a user's words for a RESP target: the connection flags of
// every command that talks to one.
type Options struct {
	// Host is a host, or host:port (then Port is not used).
	Host string
	Port int
	// Auth is -a: "password" or Tair's "user:password".
	Auth string
	// User and Password are an explicit ACL login; an empty Password reads
	// TAIRBENCH_PASSWORD.
	User, Password string
	DB             int
	// Protocol is the RESP version, 2 or 3.
	Protocol int
	// Timeout bounds connecting and each request.
	Timeout time.Duration
	// TLS connects with TLS; TLSCA, TLSCert, TLSKey or TLSInsecure imply it.
	TLS, TLSInsecure                      bool
	TLSCA, TLSCert, TLSKey, TLSServerName string
	// Cluster routes commands by slot.
	Cluster bool
	// Embedded starts the embedded server in this process and targets it.
	Embedded bool
	// Sentinels and MasterName target the primary the Sentinels name.
	Sentinels  []string
	MasterName string
	// Retry is the requests' retry policy (endpoint.Target.Retry).
	Retry int
}

// Build returns the endpoint the options describe, without starting
// anything.
func (o Options) Build() (Endpoint, error) {
	addr, err := endpoint.HostPort(o.Host, o.Port)
	if err != nil {
		return Endpoint{}, err
	}
	pw := o.Password
	if pw == "" {
		pw = os.Getenv("TAIRBENCH_PASSWORD")
	}
	tg := Endpoint{Addr: addr, Auth: o.Auth, User: o.User, Password: pw, DB: o.DB, Protocol: o.Protocol, Timeout: o.Timeout,
		Cluster: o.Cluster, Sentinels: o.Sentinels, MasterName: o.MasterName, Retry: o.Retry}
	if o.TLS || o.TLSCA != "" || o.TLSInsecure || o.TLSCert != "" {
		tg.TLS = &endpoint.TLS{CAFile: o.TLSCA, CertFile: o.TLSCert, KeyFile: o.TLSKey, Insecure: o.TLSInsecure, ServerName: o.TLSServerName}
	}
	if err := tg.Validate(); err != nil {
		return Endpoint{}, flagError(err)
	}
	return tg, nil
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
	case "retry":
		return fmt.Errorf("--retry must not be negative, got %d", fe.Value)
	}
	return err
}

// Resolve builds the endpoint and, with Embedded, starts the embedded
// server and points the endpoint at it. The stop function is never nil.
func Resolve(io harness.IO, o Options) (Endpoint, func(), error) {
	tg, err := o.Build()
	return Embed(io, tg, err, o.Embedded)
}

// Open is Resolve, except that a dry run starts nothing: its endpoint is
// only marked as in this process when the server would be.
func Open(io harness.IO, o Options, dry bool) (Endpoint, func(), error) {
	if !dry {
		return Resolve(io, o)
	}
	tg, err := o.Build()
	tg.InProcess = o.Embedded
	return tg, func() {}, err
}

// Embed takes a front-end's endpoint (and the error of building it) and,
// with embedded, starts the embedded server for it. The stop function is
// never nil.
func Embed(io harness.IO, t Endpoint, err error, embedded bool) (Endpoint, func(), error) {
	if err != nil {
		return t, func() {}, err
	}
	if embedded && len(t.Sentinels) > 0 {
		return t, func() {}, errors.New("--embedded and --sentinel: the embedded server has no Sentinels")
	}
	if len(t.Sentinels) > 0 {
		// The primary they name now: what the run's labels name; each
		// connection asks again.
		ctx, cancel := context.WithTimeout(context.Background(), t.RequestTimeout())
		defer cancel()
		addr, err := transport.ResolveMaster(ctx, t)
		if err != nil {
			return t, func() {}, err
		}
		t.Addr = addr
	}
	if !embedded {
		return t, func() {}, nil
	}
	stop, err := StartEmbedded(io, &t)
	if err != nil {
		return t, func() {}, err
	}
	return t, stop, nil
}

// StartEmbedded starts the embedded server in this process on a free
// loopback port, with the account t logs in with, and points t at it. It
// returns the function that stops the server.
func StartEmbedded(io harness.IO, t *Endpoint) (func(), error) {
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
	fmt.Fprintf(io.Err, "tairbench's embedded server, not Tair, listening on %s\n", srv.Addr())
	return func() { _ = srv.Close() }, nil
}

// Dry is the target as a dry run names it.
func Dry(addr string, embedded bool) string {
	if embedded {
		return "tairbench's embedded server (would start in this process; not Tair)"
	}
	return strings.TrimSpace(addr)
}

// StartRedisServer starts Debian's redis-server (from PATH) on a free
// loopback port with persistence off, in a folder of its own, and waits
// until it answers. It returns the address and the function that stops
// it by PID and removes its folder.
func StartRedisServer(io harness.IO) (string, func(), error) { return StartRedisServerWith(io) }

// StartRedisServerWith is StartRedisServer with more redis-server
// arguments (later ones win: "--appendonly", "yes").
func StartRedisServerWith(io harness.IO, extra ...string) (string, func(), error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, errors.New("redis-server is not installed (apt-get install redis-server; make deps does), or give a target")
	}
	dir, err := os.MkdirTemp("", "tairbench-redis-")
	if err != nil {
		return "", nil, err
	}
	for attempt := 0; attempt < 3; attempt++ {
		addr, stop, err := startRedisOn(io, bin, dir, extra...)
		if err != nil {
			_ = os.RemoveAll(dir)
			return "", nil, err
		}
		if stop != nil {
			return addr, func() { stop(); _ = os.RemoveAll(dir) }, nil
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
	_ = os.RemoveAll(dir)
	return "", nil, fmt.Errorf("redis-server did not start; its log:\n%s", log)
}

// startRedisOn starts redis-server on a free port and waits 5 s for it to
// answer: a nil stop (and nil error) when it did not.
func startRedisOn(io harness.IO, bin, dir string, extra ...string) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"), "--maxclients", "10000"}, extra...)
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start redis-server: %w", err)
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			_ = c.Close()
			fmt.Fprintf(io.Err, "redis-server started on %s (stopped at the end)\n", addr)
			return addr, stop, nil
		}
	}
	stop()
	return "", nil, nil
}

// Hint adds, to a target's refusal of a Tair module's commands, how to
// reach a server that has them.
func Hint(err error) error {
	var ue *redis.UnsupportedError
	if errors.As(err, &ue) {
		return fmt.Errorf("%w (--embedded runs tairbench's embedded server, which has it)", err)
	}
	return err
}

// Identified sets spec's identification of the RESP target t: who it is,
// or, as a *run.Unusable, why the run cannot start (a refused login, a
// server that does not speak RESP); and the actor that carries out the
// run's events on it.
func Identified(spec *run.Spec, t endpoint.Target) {
	spec.Actor = redis.NewEventActor(t)
	spec.Identify = func(ctx context.Context) (*result.ServerIdentity, error) {
		id, err := Identify(ctx, t)
		switch {
		case transport.IsAuthError(err):
			return nil, &run.Unusable{Err: fmt.Errorf("refused the login (%s)", strings.TrimSuffix(err.Error(), "."))}
		case transport.IsForeign(err):
			return nil, &run.Unusable{Err: errors.New(strings.TrimPrefix(err.Error(), "read: "))}
		}
		return id, err
	}
}

// Identify asks a RESP target who it is, as results name it: nil and an
// error when it will not say.
func Identify(ctx context.Context, t endpoint.Target) (*result.ServerIdentity, error) {
	id, err := redis.Identify(ctx, t)
	if err != nil {
		return nil, err
	}
	out := &result.ServerIdentity{Name: id.Name, Version: id.Version, Embedded: id.Embedded}
	for _, m := range id.Modules {
		out.Modules = append(out.Modules, result.ServerModule(m))
	}
	return out, nil
}

// Routing is what a cluster run's routing followed, as results hold it
// (nil for a standalone target).
func Routing(r *cluster.Routing) *result.ClusterRouting {
	if r == nil {
		return nil
	}
	return &result.ClusterRouting{Nodes: r.Nodes, MapLoads: r.MapLoads, Moved: r.Moved, Asked: r.Asked, TryAgain: r.TryAgain}
}

// ByURL is an engine reached by URL (Elasticsearch) as results name its
// target: the URL, TLS for https, no database or RESP version.
func ByURL(t endpoint.Target) *result.Target {
	r := t.Result()
	r.DB, r.RESP, r.Cluster, r.InProcess = 0, 0, false, false
	r.TLS = strings.HasPrefix(t.Addr, "https://")
	return r
}

// IdentifyByURL is the identification of an engine reached by URL: it
// asks the engine (GET / for Elasticsearch) who its server is. nil when
// the engine cannot say.
func IdentifyByURL(e any) func(context.Context) (*result.ServerIdentity, error) {
	ider, ok := e.(catalog.Identifier)
	if !ok {
		return nil
	}
	return func(ctx context.Context) (*result.ServerIdentity, error) {
		id, err := ider.Identify(ctx)
		if err != nil {
			return nil, err
		}
		return &result.ServerIdentity{Name: id.Name, Version: id.Version, Build: id.Build}, nil
	}
}
