package elastic

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/tairbench/tairbench/internal/driver/yieldconn"
	"github.com/tairbench/tairbench/internal/engine"
)

// esConn is one worker's connection to Elasticsearch for the measured
// requests, through fasthttp: the request and the reply are reused, and
// the round trip runs on the worker's goroutine, without net/http's
// per-connection goroutines and their hand-offs, which cost most of the
// client's CPU per document. go-elasticsearch keeps the API surface (index
// management, counts, stats).
type esConn struct {
	hc      *fasthttp.HostClient
	host    string
	auth    string
	timeout time.Duration
	req     fasthttp.Request
	resp    fasthttp.Response
	// mu guards nc, the connection last dialled, so that abort can close
	// it under a request in flight (fasthttp's Do takes no context).
	mu sync.Mutex
	nc net.Conn
	// y makes the reads of a reply yield at the engine's interval ends
	// (yieldTo).
	y yieldconn.Yield
}

func newESConn(base string, user, password string, timeout time.Duration) (*esConn, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("elasticsearch address %q: %w", base, err)
	}
	c := &esConn{host: u.Host, timeout: timeout}
	if c.timeout <= 0 {
		c.timeout = 60 * time.Second
	}
	addr := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	c.hc = &fasthttp.HostClient{Addr: addr, MaxConns: 1, MaxIdemponentCallAttempts: 1,
		ReadTimeout: c.timeout, WriteTimeout: c.timeout,
		NoDefaultUserAgentHeader: true, DisablePathNormalizing: true,
		Dial: func(addr string) (net.Conn, error) {
			nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return nil, &engine.ConnectError{Err: describeHTTP(err)}
			}
			c.mu.Lock()
			c.nc = nc
			c.mu.Unlock()
			return c.y.Wrap(nc), nil
		}}
	if u.Scheme == "https" {
		c.hc.IsTLS = true
		c.hc.TLSConfig = &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	}
	if user != "" || password != "" {
		c.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	}
	return c, nil
}

// do sends one request and returns the status and the body (valid until
// the next call).
func (c *esConn) do(method string, path []byte, contentType string, body []byte) (int, []byte, error) {
	req := &c.req
	req.Reset()
	req.Header.SetMethod(method)
	req.SetRequestURIBytes(path)
	req.Header.SetHost(c.host)
	req.Header.SetContentType(contentType)
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	req.SetBodyRaw(body)
	c.resp.Reset()
	if err := c.hc.Do(req, &c.resp); err != nil {
		return 0, nil, describeHTTP(err)
	}
	return c.resp.StatusCode(), c.resp.Body(), nil
}

// yieldTo makes the waits for replies call yield at the end of each of
// the engine's intervals (engine.Yielder) and go on.
func (c *esConn) yieldTo(yield func(time.Time) time.Time) { c.y.Set(yield) }

func (c *esConn) close() { c.hc.CloseIdleConnections() }

// abort closes the connection under a request in flight: the request
// returns at once with an error (the run stopped under it).
func (c *esConn) abort() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		_ = c.nc.Close()
	}
}
