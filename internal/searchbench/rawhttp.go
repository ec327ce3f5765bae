package searchbench

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tairbench/tairbench/internal/engine"
)

// rawHTTP is one worker's HTTP/1.1 connection to Elasticsearch for the
// measured requests: the request is written into a reused buffer with one
// system call and the reply read on the same goroutine, without net/http's
// per-connection goroutines and their hand-offs, which cost most of the
// client's CPU per document. go-elasticsearch keeps the API surface (index
// management, counts, stats).
type rawHTTP struct {
	addr, host string
	tls        *tls.Config
	auth       string
	timeout    time.Duration
	conn       net.Conn
	br         *bufio.Reader
	req, body  []byte
}

func newRawHTTP(base string, user, password string, timeout time.Duration) (*rawHTTP, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("elasticsearch address %q: %w", base, err)
	}
	h := &rawHTTP{host: u.Host, addr: u.Host, timeout: timeout}
	if h.timeout <= 0 {
		h.timeout = 60 * time.Second
	}
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		h.addr = net.JoinHostPort(u.Hostname(), port)
	}
	if u.Scheme == "https" {
		h.tls = &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	}
	if user != "" || password != "" {
		h.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	}
	return h, nil
}

func (h *rawHTTP) connect() error {
	c, err := net.DialTimeout("tcp", h.addr, 5*time.Second)
	if err != nil {
		return &engine.ConnectError{Err: describeHTTP(err)}
	}
	if h.tls != nil {
		tc := tls.Client(c, h.tls)
		_ = tc.SetDeadline(time.Now().Add(h.timeout))
		if err := tc.Handshake(); err != nil {
			c.Close()
			return &engine.ConnectError{Err: err}
		}
		c = tc
	}
	h.conn = c
	if h.br == nil {
		h.br = bufio.NewReaderSize(c, 16<<10)
	} else {
		h.br.Reset(c)
	}
	return nil
}

func (h *rawHTTP) close() {
	if h.conn != nil {
		_ = h.conn.Close()
		h.conn = nil
	}
}

// do sends one request and returns the status and the body (valid until
// the next call). A transport failure closes the connection; the next
// call reconnects.
func (h *rawHTTP) do(method string, path []byte, contentType string, body []byte) (int, []byte, error) {
	if h.conn == nil {
		if err := h.connect(); err != nil {
			return 0, nil, err
		}
	}
	b := h.req[:0]
	b = append(b, method...)
	b = append(b, ' ')
	b = append(b, path...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, h.host...)
	b = append(b, "\r\nContent-Type: "...)
	b = append(b, contentType...)
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	if h.auth != "" {
		b = append(b, "\r\nAuthorization: "...)
		b = append(b, h.auth...)
	}
	b = append(b, "\r\n\r\n"...)
	b = append(b, body...)
	h.req = b
	_ = h.conn.SetDeadline(time.Now().Add(h.timeout))
	if _, err := h.conn.Write(b); err != nil {
		h.close()
		return 0, nil, describeHTTP(err)
	}
	status, err := h.readResponse()
	if err != nil {
		h.close()
		return 0, nil, describeHTTP(err)
	}
	return status, h.body, nil
}

var errBadResponse = errors.New("elasticsearch: malformed HTTP response")

// readResponse reads the status, the headers and the body (by
// Content-Length, or chunked).
func (h *rawHTTP) readResponse() (int, error) {
	line, err := h.br.ReadSlice('\n')
	if err != nil {
		return 0, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, errBadResponse
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, errBadResponse
	}
	length, chunked, closeAfter := -1, false, false
	for {
		line, err := h.br.ReadSlice('\n')
		if err != nil {
			return 0, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil {
				return 0, errBadResponse
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.Contains(bytes.ToLower(v), []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			closeAfter = bytes.EqualFold(v, []byte("close"))
		}
	}
	h.body = h.body[:0]
	switch {
	case chunked:
		for {
			line, err := h.br.ReadSlice('\n')
			if err != nil {
				return 0, err
			}
			sz, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(string(line), ";", 2)[0]), 16, 64)
			if err != nil {
				return 0, errBadResponse
			}
			if sz == 0 {
				for { // trailers, then the empty line
					l, err := h.br.ReadSlice('\n')
					if err != nil {
						return 0, err
					}
					if len(bytes.TrimRight(l, "\r\n")) == 0 {
						break
					}
				}
				break
			}
			if err := h.readBody(int(sz)); err != nil {
				return 0, err
			}
			if _, err := h.br.Discard(2); err != nil { // CRLF after the chunk
				return 0, err
			}
		}
	case length >= 0:
		if err := h.readBody(length); err != nil {
			return 0, err
		}
	default: // no length: the body runs to the connection's end
		rest, err := io.ReadAll(h.br)
		if err != nil {
			return 0, err
		}
		h.body = append(h.body, rest...)
		closeAfter = true
	}
	if closeAfter {
		h.close()
	}
	return status, nil
}

func (h *rawHTTP) readBody(n int) error {
	start := len(h.body)
	if cap(h.body)-start < n {
		nb := make([]byte, start, start+n+1024)
		copy(nb, h.body)
		h.body = nb
	}
	h.body = h.body[:start+n]
	_, err := io.ReadFull(h.br, h.body[start:])
	return err
}
