package searchbench

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tairbench/tairbench/internal/engine"
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
