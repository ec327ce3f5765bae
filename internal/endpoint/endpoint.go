// Package endpoint describes the server a benchmark measures: where it is, how
// to log in (ACL user and password, or Tair's single-argument
// "user:password"), TLS, database, protocol, timeouts, cluster routing and
// whether it runs inside this process. Every front-end builds one Target
// and every driver reads it; nothing else splits credentials.
package endpoint

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/tairbench/tairbench/pkg/result"
)

// Target is one server under test.
type Target struct {
	// Addr is host:port (a URL for HTTP engines).
	Addr string
	// Auth is the whitepaper tool's -a value: "password" or "user:password".
	Auth string
	// User and Password are an explicit ACL login (--user, --password).
	User     string
	Password string
	DB       int
	// Protocol is the RESP version, 2 or 3.
	Protocol int
	// Timeout bounds connecting and each request.
	Timeout time.Duration
	// TLS is nil for a plain connection.
	TLS *TLS
	// Cluster routes commands by slot; ClusterAddrs seed the topology
	// (default: Addr).
	Cluster      bool
	ClusterAddrs []string
	// Retry is how many times a request is sent again when its connection
	// failed or the server answered that it is not the primary (READONLY,
	// LOADING, MASTERDOWN, TRYAGAIN, CLUSTERDOWN); 0: never.
	Retry int
	// Sentinels, when set, are the Sentinels that name the primary to
	// connect to (MasterName's), asked at each dial: a connection made
	// again after a failover reaches the new primary.
	Sentinels  []string
	MasterName string
	// InProcess is set when the server runs inside this process (the
	// embedded server): client and server then share the cores.
	InProcess bool
	// Name is sent as CLIENT SETNAME when set.
	Name string
	// AuthForm is how a -a "user:password" login is sent once a server has
	// been asked (AuthUnknown: the ACL form, then Tair's as the fallback).
	AuthForm AuthForm
}

// AuthForm is the form of AUTH a server accepts for "user:password".
type AuthForm uint8

const (
	// AuthUnknown: not asked yet; try the ACL form, then Tair's.
	AuthUnknown AuthForm = iota
	// AuthACL: AUTH user password.
	AuthACL
	// AuthTair: Tair's single-argument AUTH "user:password".
	AuthTair
)

// TLS configures a TLS connection.
type TLS struct {
	CAFile     string
	CertFile   string
	KeyFile    string
	Insecure   bool
	ServerName string
}

// Login is how to authenticate: the AUTH arguments to send first and, when
// the server refuses them, the single argument Tair accepts instead.
type Login struct {
	// User is "" for a password-only login.
	User     string
	Password string
	// Fallback is Tair's single-argument AUTH "user:password" ("" when none).
	Fallback string
}

// Empty reports whether no credentials were given.
func (l Login) Empty() bool { return l.User == "" && l.Password == "" }

// Args returns the AUTH arguments of the first attempt (nil when there are no credentials).
func (l Login) Args() []string {
	switch {
	case l.User != "":
		return []string{l.User, l.Password}
	case l.Password != "":
		return []string{l.Password}
	}
	return nil
}

// Login resolves the credentials. -a "user:password" is tried as an ACL
// login (AUTH user password) with Tair's AUTH "user:password" as the
// fallback; -a "password" is a plain password; --user/--password are used
// when -a is empty.
func (t Target) Login() Login {
	if t.Auth == "" {
		return Login{User: t.User, Password: t.Password}
	}
	if u, p, ok := t.splitAuth(); ok {
		switch t.AuthForm {
		case AuthTair:
			return Login{Password: t.Auth}
		case AuthACL:
			return Login{User: u, Password: p}
		}
		return Login{User: u, Password: p, Fallback: t.Auth}
	}
	return Login{User: t.User, Password: t.Auth}
}

// splitAuth splits Tair's -a "user:password"; ok is false for a plain password.
func (t Target) splitAuth() (user, pass string, ok bool) { return strings.Cut(t.Auth, ":") }

// ServerAccount is the account an embedded server must have so that this
// target's login succeeds: the default user's password (user "") or a
// named account.
func (t Target) ServerAccount() (user, password string) {
	l := t.Login()
	if l.User == "" || l.User == "default" {
		return "", l.Password
	}
	return l.User, l.Password
}

// DefaultTimeout bounds connecting and each request when Timeout is 0.
const DefaultTimeout = 10 * time.Second

// RequestTimeout is Timeout, or DefaultTimeout when it is 0 or less.
func (t Target) RequestTimeout() time.Duration {
	if t.Timeout <= 0 {
		return DefaultTimeout
	}
	return t.Timeout
}

// Result describes the target without secrets, for results and logs.
func (t Target) Result() *result.Target {
	r := &result.Target{Addr: t.Addr, User: t.User, DB: t.DB, RESP: t.Protocol, TimeoutMS: t.Timeout.Milliseconds(),
		TLS: t.TLS != nil, Cluster: t.Cluster, InProcess: t.InProcess, Sentinels: t.Sentinels, MasterName: t.MasterName}
	if u, _, ok := t.splitAuth(); ok {
		r.User, r.Auth = u, u+":***"
	} else if t.Auth != "" || t.Password != "" {
		r.Auth = "***"
	}
	return r
}

// RedactAuth hides the password of a -a value: "user:password" becomes
// "user:***", a bare password "***" (peer tools' command lines in results).
func RedactAuth(v string) string {
	if v == "" {
		return v
	}
	if user, _, ok := strings.Cut(v, ":"); ok {
		return user + ":***"
	}
	return "***"
}

// FieldError is a field of a Target that a user got wrong; front-ends
// name it with their own option.
type FieldError struct {
	// Field is "protocol" or "db".
	Field string
	Value int
	Want  string
}

// Error says what the field must be.
func (e *FieldError) Error() string {
	return fmt.Sprintf("the %s must be %s, got %d", e.Field, e.Want, e.Value)
}

// Validate checks the fields a user can get wrong.
func (t Target) Validate() error {
	if t.Protocol != 0 && t.Protocol != 2 && t.Protocol != 3 {
		return &FieldError{Field: "protocol", Value: t.Protocol, Want: "2 or 3"}
	}
	if t.DB < 0 {
		return &FieldError{Field: "db", Value: t.DB, Want: "0 or more"}
	}
	if n, _ := t.Network(); n == "unix" && t.Cluster {
		return fmt.Errorf("a Unix socket (%s) cannot be a cluster's address", t.Addr)
	}
	if (len(t.Sentinels) > 0) != (t.MasterName != "") {
		return errors.New("Sentinels and a master name go together: the Sentinels name the primary by it")
	}
	if t.Retry < 0 {
		return &FieldError{Field: "retry", Value: t.Retry, Want: "0 or more"}
	}
	if len(t.Sentinels) > 0 && t.Cluster {
		return errors.New("a cluster has no Sentinels: its nodes name each slot's primary")
	}
	return nil
}

// Network returns how to dial the target: "unix" and the socket path when
// Addr is a path (or "unix:PATH"), else "tcp" and Addr.
func (t Target) Network() (network, address string) {
	if p, ok := strings.CutPrefix(t.Addr, "unix:"); ok {
		return "unix", p
	}
	if strings.HasPrefix(t.Addr, "/") {
		return "unix", t.Addr
	}
	return "tcp", t.Addr
}

// HostPort joins host and port unless host already has a port; it checks the port.
func HostPort(host string, port int) (string, error) {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host, nil
	}
	if port <= 0 || port > 65535 {
		return "", fmt.Errorf("bad port %d", port)
	}
	return net.JoinHostPort(host, fmt.Sprint(port)), nil
}

// Config builds the TLS configuration for addr.
func (o *TLS) Config(addr string) (*tls.Config, error) {
	cfg := &tls.Config{InsecureSkipVerify: o.Insecure, ServerName: o.ServerName, MinVersion: tls.VersionTLS12} //nolint:gosec // opt-in switch
	if cfg.ServerName == "" {
		if host, _, err := net.SplitHostPort(addr); err == nil {
			cfg.ServerName = host
		}
	}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("tls: read CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls: no certificate found in %s", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	if o.CertFile != "" || o.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("tls: load client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}
