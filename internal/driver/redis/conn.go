// Package redis drives RESP servers (Redis, Tair, the embedded server) from
// command templates. Standalone targets use a raw connection with
// pre-encoded requests; cluster targets use go-redis's cluster client for
// slot-aware routing.
package redis

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/tairbench/tairbench/pkg/resp"
)

// Target describes how to reach and log in to a server.
type Target struct {
	Addr string
	// Auth is the whitepaper tool's -a value: "password" or "user:password".
	Auth     string
	User     string
	Password string
	DB       int
	Protocol int // 2 or 3
	Timeout  time.Duration
	TLS      *TLSOptions
	Name     string // CLIENT SETNAME, optional
}

// TLSOptions configure a TLS connection.
type TLSOptions struct {
	CAFile     string
	CertFile   string
	KeyFile    string
	Insecure   bool
	ServerName string
}

// Redacted returns the target with secrets replaced, for results and logs.
func (t Target) Redacted() map[string]any {
	m := map[string]any{"addr": t.Addr, "db": t.DB, "resp": t.Protocol, "timeout_ms": t.Timeout.Milliseconds(),
		"tls": t.TLS != nil}
	if t.Auth != "" {
		if u, _, ok := strings.Cut(t.Auth, ":"); ok {
			m["auth"] = u + ":***"
		} else {
			m["auth"] = "***"
		}
	}
	if t.User != "" {
		m["user"] = t.User
	}
	if t.Password != "" {
		m["password"] = "***"
	}
	return m
}

func (o *TLSOptions) config(addr string) (*tls.Config, error) {
	cfg := &tls.Config{InsecureSkipVerify: o.Insecure, ServerName: o.ServerName, MinVersion: tls.VersionTLS12} //nolint:gosec // opt-in switch
	if cfg.ServerName == "" {
		host, _, err := net.SplitHostPort(addr)
		if err == nil {
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

// Conn is a raw RESP connection.
type Conn struct {
	nc      net.Conn
	r       *resp.Reader
	wbuf    []byte
	rep     resp.Reply
	timeout time.Duration
	dl      time.Time // current deadline
	stopCtx func() bool
}

// ReplyError is an error reply from the server during the handshake.
type ReplyError struct{ Msg string }

// Error returns the server's message.
func (e *ReplyError) Error() string { return e.Msg }

// Dial connects, upgrades to TLS if asked, and logs in. When ctx ends, any
// blocked read or write returns at once.
func Dial(ctx context.Context, t Target) (*Conn, error) {
	timeout := t.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", t.Addr)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to %s: %w", t.Addr, unwrapNet(err))
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	if t.TLS != nil {
		cfg, err := t.TLS.config(t.Addr)
		if err != nil {
			nc.Close()
			return nil, err
		}
		tc := tls.Client(nc, cfg)
		hctx, cancel := context.WithTimeout(ctx, timeout)
		err = tc.HandshakeContext(hctx)
		cancel()
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("TLS handshake with %s failed: %w", t.Addr, err)
		}
		nc = tc
	}
	c := &Conn{nc: nc, r: resp.NewReader(bufio.NewReaderSize(nc, 64<<10), resp.Limits{MaxBulk: 512 << 20}), timeout: timeout}
	c.stopCtx = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	if err := c.handshake(t); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func unwrapNet(err error) error {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

// Do sends one command and returns its reply summary (for the handshake and
// tools; not for the hot path).
func (c *Conn) Do(args ...string) (resp.Reply, error) {
	c.wbuf = resp.AppendCommand(c.wbuf[:0], args...)
	if err := c.Write(c.wbuf); err != nil {
		return resp.Reply{}, err
	}
	if err := c.Read(&c.rep); err != nil {
		return resp.Reply{}, err
	}
	return c.rep, nil
}

func (c *Conn) handshake(t Target) error {
	user, pass := t.User, t.Password
	var alt []string // a second way to log in, tried if the first is refused
	if t.Auth != "" {
		if u, p, ok := strings.Cut(t.Auth, ":"); ok {
			user, pass = u, p
			alt = []string{t.Auth} // Tair's single-argument AUTH user:password
		} else {
			pass = t.Auth
		}
	}
	login := func(creds ...string) error {
		var args []string
		switch {
		case t.Protocol == 3 && len(creds) == 2:
			args = []string{"HELLO", "3", "AUTH", creds[0], creds[1]}
		case t.Protocol == 3 && len(creds) == 1:
			args = []string{"HELLO", "3", "AUTH", "default", creds[0]}
		case t.Protocol == 3:
			args = []string{"HELLO", "3"}
		case len(creds) > 0:
			args = append([]string{"AUTH"}, creds...)
		default:
			return nil
		}
		rep, err := c.Do(args...)
		if err != nil {
			return fmt.Errorf("handshake with %s: %w", t.Addr, err)
		}
		if rep.IsError() {
			return &ReplyError{Msg: string(rep.Err)}
		}
		return nil
	}
	var creds []string
	if user != "" {
		creds = []string{user, pass}
	} else if pass != "" {
		creds = []string{pass}
	}
	err := login(creds...)
	var re *ReplyError
	if err != nil && errors.As(err, &re) && alt != nil {
		if login(alt...) == nil {
			err = nil
		}
	}
	if err != nil {
		if errors.As(err, &re) {
			return fmt.Errorf("authentication to %s failed: %s", t.Addr, re.Msg)
		}
		return err
	}
	if t.DB != 0 {
		rep, err := c.Do("SELECT", strconv.Itoa(t.DB))
		if err != nil {
			return fmt.Errorf("select db %d: %w", t.DB, err)
		}
		if rep.IsError() {
			return fmt.Errorf("select db %d on %s: %s", t.DB, t.Addr, rep.Err)
		}
	}
	if t.Name != "" {
		if _, err := c.Do("CLIENT", "SETNAME", t.Name); err != nil {
			return err
		}
	}
	return nil
}

// refreshDeadline keeps a rolling deadline of at least 3/4 of the timeout
// ahead without calling SetDeadline on every request.
func (c *Conn) refreshDeadline() {
	now := time.Now()
	if c.dl.Sub(now) < c.timeout*3/4 {
		c.dl = now.Add(c.timeout)
		_ = c.nc.SetDeadline(c.dl)
	}
}

// Write writes b in full.
func (c *Conn) Write(b []byte) error {
	c.refreshDeadline()
	if _, err := c.nc.Write(b); err != nil {
		return fmt.Errorf("write: %w", describe(err))
	}
	return nil
}

// Read reads one reply summary.
func (c *Conn) Read(rep *resp.Reply) error {
	if err := c.r.ReadReply(rep); err != nil {
		return fmt.Errorf("read: %w", describe(err))
	}
	return nil
}

func describe(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("timeout")
	}
	if errors.Is(err, syscall.ECONNRESET) {
		return errors.New("connection reset by peer")
	}
	if errors.Is(err, syscall.EPIPE) {
		return errors.New("broken pipe")
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return errors.New("connection closed by server")
	}
	return unwrapNet(err)
}

// Close closes the connection.
func (c *Conn) Close() error {
	if c.stopCtx != nil {
		c.stopCtx()
	}
	return c.nc.Close()
}

func cutAuth(s string) (user, pass string, ok bool) { return strings.Cut(s, ":") }

// DoString sends one command and returns its string reply; an error reply
// becomes a *ReplyError and a nil reply an empty string.
func (c *Conn) DoString(args ...string) (string, error) {
	c.wbuf = resp.AppendCommand(c.wbuf[:0], args...)
	if err := c.Write(c.wbuf); err != nil {
		return "", err
	}
	s, isErr, _, err := c.r.ReadText()
	if err != nil {
		return "", fmt.Errorf("read: %w", describe(err))
	}
	if isErr {
		return "", &ReplyError{Msg: s}
	}
	return s, nil
}
