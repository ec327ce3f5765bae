package elastic

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/engine"
	"github.com/tairbench/tairbench/internal/testenv"
)

// TestESConnReplies checks the measured requests' connection against an
// HTTP server: method, path, content type, body and basic auth arrive; the
// connection is reused; chunked and closing replies are read; an error
// status comes back with its body; a refused connection is a connect
// failure (measured as time, not as an error reply).
func TestESConnReplies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		user, pw, _ := r.BasicAuth()
		switch r.URL.Path {
		case "/chunked":
			w.Write([]byte("part one, "))
			w.(http.Flusher).Flush()
			w.Write([]byte("part two"))
		case "/close":
			w.Header().Set("Connection", "close")
			w.Write([]byte("bye"))
		case "/error":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"type":"document_parsing_exception","reason":"bad"}}`))
		default:
			w.Write([]byte(r.Method + " " + r.URL.RequestURI() + " " + r.Header.Get("Content-Type") + " " + string(body) + " " + user + ":" + pw))
		}
	}))
	defer srv.Close()
	h, err := newESConn(srv.URL, "u", "p", 5*time.Second)
	require.NoError(t, err)
	for range 3 { // the connection is reused
		status, body, err := h.do("PUT", []byte("/i/_doc/1?refresh=true"), "application/json", []byte(`{"a":1}`))
		require.NoError(t, err)
		assert.Equal(t, 200, status)
		assert.Equal(t, `PUT /i/_doc/1?refresh=true application/json {"a":1} u:p`, string(body))
	}
	status, body, err := h.do("GET", []byte("/chunked"), "text/plain", nil)
	require.NoError(t, err)
	assert.Equal(t, 200, status)
	assert.Equal(t, "part one, part two", string(body))
	status, body, err = h.do("GET", []byte("/close"), "text/plain", nil)
	require.NoError(t, err)
	assert.Equal(t, "bye", string(body))
	status, body, err = h.do("POST", []byte("/error"), "application/json", nil)
	require.NoError(t, err, "a reconnection after the close")
	assert.Equal(t, 400, status)
	assert.Equal(t, "HTTP 400: document_parsing_exception: bad", httpError(status, body).Error())

	srv.Close()
	h.close()
	_, _, err = h.do("GET", []byte("/"), "text/plain", nil)
	var ce *engine.ConnectError
	require.True(t, errors.As(err, &ce), "a refused connection is a connect failure: %v", err)
	assert.True(t, strings.Contains(err.Error(), "refused"), err.Error())
}

// TestESConnDoesNotAllocate checks the measured requests' hot path: once
// the connection is up, a request and its reply allocate nothing. The
// server is a bare socket loop answering each request (headers and a
// 7-byte body) with a fixed reply, so that it allocates nothing itself.
func TestESConnDoesNotAllocate(t *testing.T) {
	testenv.NoRaceForAllocs(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 64<<10)
		reply := []byte("HTTP/1.1 200 OK\r\nContent-Length: 20\r\nContent-Type: application/json\r\n\r\n{\"result\":\"created\"}")
		have := 0
		for {
			n, err := c.Read(buf[have:])
			if err != nil {
				return
			}
			have += n
			for {
				i := bytes.Index(buf[:have], []byte("\r\n\r\n"))
				if i < 0 || have < i+4+7 {
					break
				}
				copy(buf, buf[i+4+7:have])
				have -= i + 4 + 7
				c.Write(reply)
			}
		}
	}()
	h, err := newESConn("http://"+ln.Addr().String(), "", "", 5*time.Second)
	require.NoError(t, err)
	body := []byte(`{"a":1}`)
	path := []byte("/i/_doc/1")
	for range 10 {
		_, _, err := h.do("PUT", path, "application/json", body)
		require.NoError(t, err)
	}
	assert.Zero(t, testing.AllocsPerRun(200, func() { _, _, _ = h.do("PUT", path, "application/json", body) }))
}

func TestWithDefaultSettings(t *testing.T) {
	out, err := withDefaultSettings([]byte(`{"settings":{"index":{"number_of_shards":2},"analysis":{}},"mappings":{"properties":{}}}`), "1s")
	require.NoError(t, err)
	assert.JSONEq(t, `{"settings":{"index":{"number_of_shards":2},"analysis":{},"number_of_replicas":0,"refresh_interval":"1s"},"mappings":{"properties":{}}}`, string(out))
	_, err = withDefaultSettings([]byte(`[`), "1s")
	assert.Error(t, err)
}
